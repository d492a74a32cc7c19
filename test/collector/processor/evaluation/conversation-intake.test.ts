/**
 * The evaluation processor takes in conversations that are over: a revision triggers the bindings
 * with `trigger: conversation` (and only those), once per revision, sampled by the conversation's
 * key so that every revision agrees, failed when its last interaction failed; revisions closed
 * while the processor was down are caught up at start; and a conversation never reaches an
 * evaluator that cannot judge one.
 */
import { describe, expect, it } from 'vitest';
import type { ConversationRevision } from '../../../../collector/ledger/conversation-store.ts';
import type { SqliteLedgerStore } from '../../../../collector/ledger/sqlite/sqlite-store.ts';
import { isConversationSampled } from '../../../../collector/processor/evaluation/sampling.ts';
import { defineEvaluator, effects, Evaluation, type Subject } from '../../../../src/evaluation/index.ts';
import { EVALON_CONVERSATION_ENDED } from '../../../../src/model/attributes.ts';
import type { InteractionRecord } from '../../../../src/model/records.ts';
import { interaction, processorHarnesses } from './helpers/processor-harness.ts';

const start = processorHarnesses();

/** Judges conversations (and interactions); pushes every subject it is given. */
function subjectsEvaluator(id: string, seen: Subject[]) {
  return defineEvaluator({
    id,
    subjects: ['interaction', 'conversation'],
    create: () => ({
      evaluate(context) {
        seen.push(context.subject);
        return effects.complete(Evaluation.passed(`${context.subject.kind} seen`));
      },
    }),
  });
}

let clock = Date.parse('2026-03-01T10:00:00.000Z');
/** A turn of `conversationId`, a second after the previous one. */
function turn(agentId: string, conversationId: string, overrides: Partial<InteractionRecord> = {}) {
  clock += 1000;
  return interaction(agentId, {
    conversationId,
    startTime: new Date(clock).toISOString(),
    endTime: new Date(clock + 500).toISOString(),
    ...overrides,
  });
}
const ending = (agentId: string, conversationId: string, overrides: Partial<InteractionRecord> = {}) =>
  turn(agentId, conversationId, { attributes: { [EVALON_CONVERSATION_ENDED]: true }, ...overrides });

/** Closes every conversation whose end was requested, as the conversation tracker does. */
async function closeEnded(store: SqliteLedgerStore): Promise<ConversationRevision[]> {
  const due = await store.findDueConversations({
    now: new Date(clock + 1000).toISOString(),
    idleMs: 3_600_000,
    limit: 100,
  });
  return store.closeConversations(due);
}

describe('conversation intake', () => {
  it('triggers conversation bindings once per revision, and interaction bindings per interaction', async () => {
    const seen: Subject[] = [];
    const harness = await start({
      yaml: `
evaluators:
  judge:
    agents:
      support-agent: { trigger: conversation }
      billing-agent: { trigger: interaction }
`,
      evaluators: [subjectsEvaluator('judge', seen)],
    });
    const turns = [turn('support-agent', 'c-1'), turn('support-agent', 'c-1'), ending('support-agent', 'c-1')];
    const billing = [turn('billing-agent', 'c-1'), ending('billing-agent', 'c-1')];
    await harness.record([...turns, ...billing]);
    const closed = await closeEnded(harness.store);
    expect(closed.map((r) => r.agentId).sort()).toEqual(['billing-agent', 'support-agent']);
    await harness.processor.consumeConversations(closed);
    await harness.processor.idle();
    expect(harness.processor.stats.conversationsTakenIn).toBe(2);
    // The same revisions again (another replica's sweep): nothing more is queued.
    await harness.processor.consumeConversations(closed);
    await harness.processor.idle();
    const conversations = seen.filter((s) => s.kind === 'conversation');
    expect(conversations).toEqual([
      {
        kind: 'conversation',
        conversationId: 'c-1',
        agentId: 'support-agent',
        revision: 1,
        interactionIds: turns.map((t) => t.interactionId),
        interactionId: turns[2].interactionId,
      },
    ]);
    expect(seen.filter((s) => s.kind === 'interaction').map((s) => s.interactionId)).toEqual(
      billing.map((t) => t.interactionId),
    );
    const [record] = await harness.store.getConversationEvaluations('c-1', 'support-agent');
    expect(record).toMatchObject({
      interactionId: turns[2].interactionId,
      agentId: 'support-agent',
      subject: { kind: 'conversation', conversationId: 'c-1', agentId: 'support-agent', revision: 1 },
      outcome: { type: 'verdict', evaluation: { passed: true, explanation: 'conversation seen' } },
    });
    expect(await harness.store.loadConversationsAwaitingIntake(10)).toEqual([]);

    // Resumed and over again: revision 2, evaluated too; both records are kept.
    const more = ending('support-agent', 'c-1');
    await harness.record([more]);
    await harness.processor.consumeConversations(await closeEnded(harness.store));
    await harness.processor.idle();
    const records = await harness.store.getConversationEvaluations('c-1', 'support-agent');
    expect(records.map((r) => r.subject)).toEqual([
      { kind: 'conversation', conversationId: 'c-1', agentId: 'support-agent', revision: 1 },
      { kind: 'conversation', conversationId: 'c-1', agentId: 'support-agent', revision: 2 },
    ]);
    expect(records[1].interactionId).toBe(more.interactionId);
  });

  it('records a conversation verdict under the entry id and the entry version, shadow marked', async () => {
    const seen: Subject[] = [];
    const harness = await start({
      yaml: `
evaluators:
  judge:
    agents:
      support-agent: { trigger: interaction }
  judge/whole-conversation:
    version: "7"
    shadow: true
    agents:
      support-agent: { trigger: conversation }
`,
      evaluators: [subjectsEvaluator('judge', seen)],
    });
    const turns = [turn('support-agent', 'c-entry'), ending('support-agent', 'c-entry')];
    await harness.record(turns);
    await harness.processor.consumeConversations(await closeEnded(harness.store));
    await harness.processor.idle();
    expect(await harness.store.getConversationEvaluations('c-entry', 'support-agent')).toMatchObject([
      {
        evaluatorId: 'judge/whole-conversation',
        evaluatorVersion: '7',
        shadow: true,
        subject: { kind: 'conversation', conversationId: 'c-entry', agentId: 'support-agent', revision: 1 },
      },
    ]);
    // The per-interaction entry judged each turn, under its own id and the evaluator's version.
    const ofTurns = await Promise.all(turns.map((t) => harness.store.getEvaluations(t.interactionId)));
    expect(ofTurns.map((records) => records.map((r) => [r.evaluatorId, r.shadow ?? false]))).toEqual([
      [['judge', false]],
      [['judge', false]],
    ]);
  });

  it('samples a conversation by its key, the same for every revision', async () => {
    const seen: Subject[] = [];
    const harness = await start({
      yaml: `
evaluators:
  judge:
    agents:
      support-agent: { trigger: conversation, sampling-ratio: 0.5 }
`,
      evaluators: [subjectsEvaluator('judge', seen)],
    });
    const ids = Array.from({ length: 24 }, (_, n) => `conversation-${n}`);
    for (const round of [1, 2]) {
      await harness.record(ids.map((id) => ending('support-agent', id)));
      const closed = await closeEnded(harness.store);
      expect(closed.every((r) => r.revision === round)).toBe(true);
      await harness.processor.consumeConversations(closed);
      await harness.processor.idle();
    }
    const expected = ids.filter((id) => isConversationSampled(id, 'support-agent', 0.5));
    expect(expected.length).toBeGreaterThan(0);
    expect(expected.length).toBeLessThan(ids.length);
    const evaluated = (revision: number) =>
      seen
        .filter((s) => s.kind === 'conversation' && s.revision === revision)
        .map((s) => (s.kind === 'conversation' ? s.conversationId : ''))
        .sort();
    expect(evaluated(1)).toEqual([...expected].sort());
    expect(evaluated(2)).toEqual([...expected].sort());
    expect(harness.processor.stats.notSampled).toBe(2 * (ids.length - expected.length));
  });

  it('leaves out a conversation whose last interaction failed, unless the binding triggers on failure', async () => {
    const seen: Subject[] = [];
    const harness = await start({
      yaml: `
evaluators:
  strict:
    agents:
      support-agent: { trigger: conversation }
  lenient:
    agents:
      support-agent: { trigger: conversation, trigger-on-failure: true }
`,
      evaluators: [subjectsEvaluator('strict', seen), subjectsEvaluator('lenient', seen)],
    });
    // An earlier failed turn does not fail the conversation; a failed last turn does.
    await harness.record([turn('support-agent', 'recovered', { failed: true }), ending('support-agent', 'recovered')]);
    await harness.record([turn('support-agent', 'broken'), ending('support-agent', 'broken', { failed: true })]);
    await harness.processor.consumeConversations(await closeEnded(harness.store));
    await harness.processor.idle();
    const byEvaluator = async (conversationId: string) =>
      (await harness.store.getConversationEvaluations(conversationId, 'support-agent'))
        .map((r) => r.evaluatorId)
        .sort();
    expect(await byEvaluator('recovered')).toEqual(['lenient', 'strict']);
    expect(await byEvaluator('broken')).toEqual(['lenient']);
    expect(harness.processor.stats.failedNotTriggered).toBe(1);
  });

  it('takes in at start the revisions that closed while it was down', async () => {
    const seen: Subject[] = [];
    const harness = await start({
      yaml: `
evaluators:
  judge:
    agents:
      support-agent: { trigger: conversation }
`,
      evaluators: [subjectsEvaluator('judge', seen)],
    });
    await harness.processor.shutdown();
    await harness.store.putInteractions([ending('support-agent', 'c-9')]);
    expect(await closeEnded(harness.store)).toHaveLength(1);
    await harness.restart();
    await harness.processor.idle();
    expect(seen.map((s) => s.kind)).toEqual(['conversation']);
    expect(await harness.store.loadConversationsAwaitingIntake(10)).toEqual([]);
  });

  it('fails the evaluation of a conversation queued for an evaluator that no longer judges conversations', async () => {
    const interactionOnly = defineEvaluator({
      id: 'judge',
      create: () => ({ evaluate: () => effects.complete(Evaluation.passed('never')) }),
    });
    const harness = await start({
      yaml: `
evaluators:
  judge:
    agents:
      support-agent: { trigger: conversation }
`,
      evaluators: [interactionOnly],
    });
    await harness.record([ending('support-agent', 'c-2')]);
    await harness.processor.consumeConversations(await closeEnded(harness.store));
    await harness.processor.idle();
    const [record] = await harness.store.getConversationEvaluations('c-2', 'support-agent');
    expect(record.outcome).toEqual({
      type: 'failed',
      errorType: 'UnsupportedSubjectError',
      error:
        'evaluator judge: cannot judge a conversation (it declares subjects: interaction; bind it with trigger: ' +
        "interaction, or define it with subjects: ['interaction', 'conversation'])",
    });
  });
});
