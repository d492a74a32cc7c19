/**
 * Failed exports said out loud and counted. The OpenTelemetry SDK reports a failed export only
 * through its `diag` logger, which is silent unless configured; a backend that is down or refuses
 * the data would lose verdicts without a word. This wraps an exporter so that each failure reaches
 * the collector's log (at most one line a minute per exporter and signal, with a count of the
 * others) and the `evalon.exporter.failures` counter (through `onFailure`).
 */
import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import type { Logger } from '../../logger.ts';

const LOG_INTERVAL_MS = 60_000;

interface Exporter<T> {
  export(items: T, resultCallback: (result: ExportResult) => void): void;
}

export interface ExportFailureWatch {
  /** The exporter's YAML path, `exporters::otlphttp/tempo`, which starts each log line. */
  where: string;
  /** What is exported, for the log line: `verdict events`. */
  what: string;
  url: string;
  logger: Logger;
  /** Called once per failed export (after the exporter's own retries). */
  onFailure(): void;
}

export function watchExportFailures<T, E extends Exporter<T>>(exporter: E, watch: ExportFailureWatch): E {
  const original = exporter.export.bind(exporter);
  let lastLog = 0;
  let suppressed = 0;
  exporter.export = (items: T, resultCallback: (result: ExportResult) => void) => {
    original(items, (result) => {
      if (result.code !== ExportResultCode.SUCCESS) {
        watch.onFailure();
        const now = Date.now();
        if (now - lastLog >= LOG_INTERVAL_MS) {
          const more = suppressed > 0 ? ` (${suppressed} more failed exports since the last report)` : '';
          watch.logger.warn(
            `${watch.where}: exporting ${watch.what} to ${watch.url} failed: ` +
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
