/**
 * Evaluation span ids, shared by the exporters and the evaluation processor (which makes the
 * judge-call spans). The collector's instrumentation scope is `COLLECTOR_SCOPE` in
 * src/model/telemetry-names.ts.
 *
 * The span id of an evaluation's `evaluate <evaluator-id>` span, derived from the evaluation id:
 * the first 8 bytes of SHA-256(evaluation id), as 16 lowercase hex. Anything done during the
 * evaluation (a judge's model calls, also in an attempt before a restart) can name this span as
 * its parent before the span itself is exported, when the outcome is recorded.
 */
import { createHash } from 'node:crypto';

/** The all-zero span id is invalid in OTLP; a hash that gives it (2^-64) takes this one instead. */
const NON_ZERO_FALLBACK = '0000000000000001';

export function evaluationSpanId(evaluationId: string): string {
  const id = createHash('sha256').update(evaluationId, 'utf8').digest('hex').slice(0, 16);
  return id === '0000000000000000' ? NON_ZERO_FALLBACK : id;
}
