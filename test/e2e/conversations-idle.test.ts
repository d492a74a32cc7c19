/**
 * A conversation without an explicit end is over once no turn of it has started for
 * `conversation_idle` after its last one completed (a short window here; the rule itself is
 * tested on fake time in test/collector/processor/interactions/conversation-tracker.test.ts).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { ConversationWithInteractions } from '../../src/model/records.ts';
import { TestKit } from '../../src/testing/index.ts';

const IDLE_MS = 1_500;

let kit: TestKit;
beforeAll(async () => {
  kit = await TestKit.start({
    additionalConfig: `
processors:
  interactions:
    conversation_idle: ${IDLE_MS}ms
  evaluation:
    evaluators:
      reply-length:
        min-length: 5
        agents:
          support-agent: { trigger: conversation }
`,
  });
});
afterAll(async () => {
  await kit?.close();
});

it('evaluates a conversation once it has been idle for conversation_idle, and not before', async () => {
  const { interactionId } = await kit.invokeAgent(
    { id: 'support-agent', conversationId: 'c-idle', input: 'Where is my order?' },
    async () => 'It arrives on Thursday.',
  );
  const recorded = await kit.awaitInteraction(interactionId);
  const [record] = await kit.awaitConversationEvaluations('c-idle', { atMost: '15s' });
  const completed = Date.parse(record.completedAt);
  // Over at the last turn's end plus the idle window; evaluated after that, never before.
  expect(completed).toBeGreaterThanOrEqual(Date.parse(recorded.endTime) + IDLE_MS);
  expect(record).toMatchObject({
    evaluatorId: 'reply-length',
    interactionId,
    subject: { kind: 'conversation', conversationId: 'c-idle', revision: 1 },
    outcome: { evaluation: { passed: true } },
  });
  const conversation = (await (
    await fetch(`${kit.apiUrl}/api/v1/conversations/c-idle`)
  ).json()) as ConversationWithInteractions;
  expect(conversation).toMatchObject({ open: false, endReason: 'idle' });
  expect(Date.parse(conversation.endTime!)).toBe(Date.parse(recorded.endTime) + IDLE_MS);
});
