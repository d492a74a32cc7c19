/**
 * What the collector would record from the spans an instrumented agent exported, computed in
 * process with the collector's own assembly and record builder (no server, no ledger): a fast check
 * that the instrumentation's spans read as intended, while the end-to-end tests go through the
 * running collector.
 */
import type { ReadableSpan } from '@opentelemetry/sdk-trace';
import type { InteractionRecord } from '../../../../src/model/records.ts';
import type { SpanData } from '../../../../collector/model/span.ts';
import { createAssembler } from '../../../../collector/processor/interactions/assembler.ts';
import { agentIdOf, buildInteractionRecord } from '../../../../collector/processor/interactions/build-record.ts';
import { readableSpansToSpanData } from '../../../helpers/readable-span-to-span-data.ts';

export function recordsFromSpans(spans: readonly ReadableSpan[]): InteractionRecord[] {
  const data = readableSpansToSpanData(spans);
  const byId = new Map<string, SpanData>(data.map((span) => [span.spanId, span]));
  const assembler = createAssembler({ settleMs: 0, decisionWaitMs: 0, maxPendingTraces: 1000 });
  assembler.add(data, 0);
  const decisions = assembler.flushAll(1_000_000);
  return decisions.interactions.map((decision) =>
    buildInteractionRecord({
      root: byId.get(decision.rootSpanId)!,
      spans: decision.memberSpanIds.map((id) => byId.get(id)!).filter(Boolean),
      nested: decision.nested.map(({ spanId, interactionId }) => ({
        span: byId.get(spanId)!,
        interactionId,
        agentId: agentIdOf(byId.get(spanId)!),
      })),
      flowId: decision.flowId,
      completion: decision.completion,
    }),
  );
}
