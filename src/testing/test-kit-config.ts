/**
 * The configuration a `TestKit` collector starts from: loopback, ephemeral ports, a SQLite ledger
 * in the kit's temporary directory, a short settle window. The test's `additionalConfig` is a
 * second file merged over it by the real loader (later keys win, lists are replaced), so a test
 * writes only its bindings.
 */
import { isAbsolute, resolve } from 'node:path';
import { DURATION_FORM, durationMs as parseDurationMs, type Duration } from '../config/duration.ts';

/** The interactions processor's settle window in a kit: short, since a test flushes its spans at once. */
export const DEFAULT_TEST_KIT_SETTLE = '100ms';
/** How long `awaitEvaluations` polls before it gives up: 30 s. */
export const DEFAULT_AT_MOST_MS = 30_000;

export function baseConfigYaml(options: { ledgerPath: string; modules: readonly string[]; settle: string }): string {
  const modules = options.modules.map((module) => JSON.stringify(isAbsolute(module) ? module : resolve(module)));
  return `receivers:
  otlp:
    protocols:
      http:
        endpoint: 127.0.0.1:0
processors:
  interactions:
    settle: ${options.settle}
    decision_wait: 3s
  evaluation:
    ledger:
      sqlite: { path: ${JSON.stringify(options.ledgerPath)} }
    modules: [ ${modules.join(', ')} ]
extensions:
  api: { endpoint: 127.0.0.1:0 }
service:
  extensions: [api]
  pipelines:
    traces: { receivers: [otlp], processors: [interactions, evaluation] }
`;
}

/** Milliseconds, or text in Evalon's duration grammar (`'500ms'`, `'30s'`, `'2m'`). */
export type TestKitDuration = Duration;

export function durationMs(value: TestKitDuration, where: string): number {
  const ms = parseDurationMs(value);
  if (ms === undefined) throw new TypeError(`${where}: ${JSON.stringify(value)} is not a duration (${DURATION_FORM})`);
  return ms;
}
