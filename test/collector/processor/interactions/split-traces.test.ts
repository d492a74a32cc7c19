/**
 * Split-trace detection against a store double: what becomes a late span of which recorded
 * interaction, rate-limited warnings, and a failing query that does not stop recording.
 */
import { describe, expect, it } from 'vitest';
import type { LedgerStore, TraceElsewhere, TracesElsewhere } from '../../../../collector/ledger/store.ts';
import { createSplitTraces, LOG_INTERVAL_MS } from '../../../../collector/processor/interactions/split-traces.ts';
import type { SpanData } from '../../../../collector/model/span.ts';
import { span, spanId, TRACE_A, TRACE_B } from './helpers/span-builder.ts';

function setup(tracesElsewhere?: LedgerStore['tracesElsewhere']) {
  const warnings: string[] = [];
  let now = 0;
  const store = { tracesElsewhere } as unknown as LedgerStore;
  const splits = createSplitTraces({
    store,
    logger: { info() {}, warn: (line) => warnings.push(line), error() {} },
    clock: () => now,
  });
  return { splits, warnings, advance: (ms: number) => (now += ms) };
}

const mapOf = (spans: SpanData[]) => new Map(spans.map((s) => [s.spanId, s]));

describe('split traces', () => {
  it('asks nothing of a store without tracesElsewhere (SQLite)', async () => {
    const { splits } = setup();
    expect(await splits.find([TRACE_A])).toBeUndefined();
  });

  it('keeps each unplaced span as a late span of its nearest recorded ancestor, else of the first recorded', () => {
    const { splits } = setup();
    // Recorded elsewhere: interactions rooted at 1 and at 5. Here: 6 under 5 (5 is missing here),
    // 8 under 7 under 1, and 9 under a span nobody here has.
    const elsewhere: TraceElsewhere = {
      pendingOn: [],
      recorded: [
        { interactionId: `${TRACE_A}-${spanId(1)}`, replicaId: 'r1' },
        { interactionId: `${TRACE_A}-${spanId(5)}`, replicaId: 'r1' },
      ],
    };
    const spans = mapOf([
      span({ id: 6, parent: 5 }),
      span({ id: 7, parent: 1 }),
      span({ id: 8, parent: 7 }),
      span({ id: 9, parent: 42 }),
    ]);
    const late = splits.keepAsLate(TRACE_A, [spanId(6), spanId(8), spanId(9)], spans, elsewhere);
    expect(late.map((l) => [l.span.spanId, l.interactionId])).toEqual([
      [spanId(6), `${TRACE_A}-${spanId(5)}`],
      [spanId(8), `${TRACE_A}-${spanId(1)}`],
      [spanId(9), `${TRACE_A}-${spanId(1)}`],
    ]);
    expect(splits.keepAsLate(TRACE_A, [spanId(6)], spans, { pendingOn: ['r2'], recorded: [] })).toEqual([]);
  });

  it('counts every split trace and logs at most one line per interval, saying how many it left out', () => {
    const { splits, warnings, advance } = setup();
    const found = (traceIds: string[]): TracesElsewhere => ({
      replicaId: 'me',
      traces: new Map(traceIds.map((t) => [t, { pendingOn: ['r2', 'r3'], recorded: [] }])),
    });
    splits.report(found([TRACE_A, TRACE_B]), new Map());
    expect(splits.count).toBe(2);
    expect(warnings).toEqual([
      expect.stringContaining(
        `trace ${TRACE_A} was split across replicas: this one ("me") and spans pending on "r2", "r3"`,
      ),
    ]);
    advance(LOG_INTERVAL_MS);
    splits.report(found(['c'.repeat(32)]), new Map());
    expect(warnings[1]).toMatch(/3 split traces so far; 1 more split traces since the last report/);
  });

  it('reports a failed query once per interval and lets the decided traces go on', async () => {
    const { splits, warnings } = setup(async () => {
      throw new Error('ledger down');
    });
    expect(await splits.find([TRACE_A])).toBeUndefined();
    expect(await splits.find([TRACE_B])).toBeUndefined();
    expect(warnings).toEqual([
      expect.stringMatching(/could not check 1 decided traces for spans on other replicas: Error: ledger down/),
    ]);
  });
});
