/**
 * Spans the OTLP receiver refused, counted by reason and protocol for the
 * `evalon.receiver.refused_spans` counter (docs/metrics.md, the alerts in dashboards/alerts):
 *
 * | reason        | HTTP                                    | gRPC                                       |
 * | ------------- | --------------------------------------- | ------------------------------------------ |
 * | `auth`        | 401                                     | UNAUTHENTICATED                            |
 * | `too_large`   | 413                                     | not counted: grpc-js answers it, not Evalon |
 * | `bad_request` | 400, 404, 405, 415, spans refused alone | INVALID_ARGUMENT, spans refused alone      |
 * | `throttled`   | 429, 503                                | UNAVAILABLE                                |
 *
 * "Spans refused alone" are those a partial success reports (a bad id), the rest being stored.
 *
 * A request refused before its spans were decoded counts as one span: how many it held is not
 * known, and reading the body of a request that is refused anyway is what the limits avoid.
 */

export const REFUSAL_REASONS = ['auth', 'too_large', 'bad_request', 'throttled'] as const;
export type RefusalReason = (typeof REFUSAL_REASONS)[number];
export type OtlpProtocol = 'http' | 'grpc';

export interface RefusedSpans {
  reason: RefusalReason;
  protocol: OtlpProtocol;
  count: number;
}

export interface RefusalCounts {
  add(protocol: OtlpProtocol, reason: RefusalReason, spans: number): void;
  /** Every reason of every protocol counted here, zeros included (a series exists before its first refusal). */
  counts(): RefusedSpans[];
}

export function createRefusalCounts(protocols: readonly OtlpProtocol[]): RefusalCounts {
  const counts = new Map<string, RefusedSpans>();
  for (const protocol of protocols)
    for (const reason of REFUSAL_REASONS) counts.set(`${protocol} ${reason}`, { reason, protocol, count: 0 });
  return {
    add(protocol, reason, spans) {
      const key = `${protocol} ${reason}`;
      const entry = counts.get(key) ?? { reason, protocol, count: 0 };
      entry.count += spans;
      counts.set(key, entry);
    },
    counts: () => [...counts.values()].map((entry) => ({ ...entry })),
  };
}

/** The reason an HTTP refusal is counted under, from its status. */
export function refusalReasonOfStatus(httpStatus: number): RefusalReason {
  if (httpStatus === 401) return 'auth';
  if (httpStatus === 413) return 'too_large';
  if (httpStatus === 429 || httpStatus === 503) return 'throttled';
  return 'bad_request';
}
