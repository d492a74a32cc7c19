/**
 * The loop-safety mark (`evalon.evaluation.id`) reaches the interaction record whether the judge
 * sets it on its invocation span or on its resource (a judge service marking all it emits).
 */
import { describe, expect, it } from 'vitest';
import { buildInteractionRecord } from '../../../../collector/processor/interactions/build-record.ts';
import { carriesEvaluationMark } from '../../../../collector/processor/evaluation/loop-safety.ts';
import { agentSpan } from './helpers/span-builder.ts';

function recordOf(root: ReturnType<typeof agentSpan>) {
  return buildInteractionRecord({ root, spans: [root], nested: [], completion: 'structural' });
}

describe('the loop-safety mark on interaction records', () => {
  it('is carried from the invocation span', () => {
    const root = agentSpan({ id: 1, agent: 'judge', attributes: { 'evalon.evaluation.id': 'ev-1' } });
    expect(carriesEvaluationMark(recordOf(root))).toBe(true);
  });

  it('is carried from the resource', () => {
    const root = agentSpan({ id: 1, agent: 'judge' });
    root.origin = { ...root.origin, resource: { ...root.origin.resource, 'evalon.evaluation.id': 'ev-2' } };
    expect(carriesEvaluationMark(recordOf(root))).toBe(true);
  });

  it('is absent from an ordinary interaction', () => {
    expect(carriesEvaluationMark(recordOf(agentSpan({ id: 1, agent: 'support-agent' })))).toBe(false);
  });
});
