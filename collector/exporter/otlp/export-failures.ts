/**
 * Failed exports said out loud. The OpenTelemetry SDK reports a failed export only through its
 * `diag` logger, which is silent unless configured; a backend that is down or refuses the data
 * would lose verdicts without a word. This wraps an exporter so that each failure reaches the
 * collector's log (at most one line a minute per exporter, with a count of the others).
 */
import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import type { Logger } from '../../logger.ts';

const LOG_INTERVAL_MS = 60_000;

interface Exporter<T> {
  export(items: T, resultCallback: (result: ExportResult) => void): void;
}

export function logExportFailures<T, E extends Exporter<T>>(exporter: E, what: string, url: string, logger: Logger): E {
  const original = exporter.export.bind(exporter);
  let lastLog = 0;
  let suppressed = 0;
  exporter.export = (items: T, resultCallback: (result: ExportResult) => void) => {
    original(items, (result) => {
      if (result.code !== ExportResultCode.SUCCESS) {
        const now = Date.now();
        if (now - lastLog >= LOG_INTERVAL_MS) {
          const more = suppressed > 0 ? ` (${suppressed} more failed exports since the last report)` : '';
          logger.warn(
            `exporters::otlphttp: exporting ${what} to ${url} failed: ` +
              `${result.error?.message ?? 'unknown error'}${more}`,
          );
          lastLog = now;
          suppressed = 0;
        } else suppressed++;
      }
      resultCallback(result);
    });
  };
  return exporter;
}
