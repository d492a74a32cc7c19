/**
 * Spans refused one by one (a bad id) while the rest of the batch is accepted. Their count and a
 * readable summary become the response's `partial_success`; the summary names the first few
 * problems only, because the response body must stay small (the OTLP specification caps it at 4 MiB and clients
 * log it). A warning (nothing refused, something the sender should know) travels the same way, as
 * the OTLP specification allows: `rejected_spans = 0` with a message.
 */

/** How many problems the summary spells out before it says "and N more". */
const MAX_NAMED_PROBLEMS = 3;

export interface SpanRejections {
  /** Records one refused span: `path` locates it (`resourceSpans[0].scopeSpans[1].spans[3]`). */
  add(path: string, problem: string): void;
  /** Records a problem that refused no span. */
  warn(message: string): void;
  count(): number;
  /** Undefined when there is nothing to report. */
  message(): string | undefined;
}

export function createSpanRejections(): SpanRejections {
  let count = 0;
  const named: string[] = [];
  const warnings: string[] = [];
  return {
    add(path, problem) {
      count++;
      if (named.length < MAX_NAMED_PROBLEMS) named.push(`${path}: ${problem}`);
    },
    warn(message) {
      if (warnings.length < MAX_NAMED_PROBLEMS) warnings.push(message);
    },
    count: () => count,
    message() {
      const more = count - named.length;
      const parts = more > 0 ? [...named, `and ${more} more rejected span(s)`] : [...named];
      parts.push(...warnings);
      return parts.length === 0 ? undefined : parts.join('; ');
    },
  };
}

export function spanPath(resourceIndex: number, scopeIndex: number, spanIndex: number): string {
  return `resourceSpans[${resourceIndex}].scopeSpans[${scopeIndex}].spans[${spanIndex}]`;
}
