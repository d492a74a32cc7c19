/** Small evaluators for runtime tests: each records what it saw. */
import { setTimeout as sleep } from 'node:timers/promises';
import { defineEvaluator, effects, Evaluation, type EvaluationContext } from '../../../../../src/evaluation/index.ts';

export interface Seen {
  evaluatorId: string;
  interactionId: string;
  agentId: string;
  config: Record<string, unknown>;
  evaluationId: string;
}

/** Passes every interaction, after `delayMs`; pushes what it saw into `seen`. */
export function recordingEvaluator(id: string, seen: Seen[], options: { delayMs?: number; version?: string } = {}) {
  return defineEvaluator({
    id,
    ...(options.version ? { version: options.version } : {}),
    create: ({ ledger }) => ({
      async evaluate(context: EvaluationContext) {
        seen.push({
          evaluatorId: id,
          interactionId: context.subject.interactionId,
          agentId: context.subject.agentId,
          config: context.config().toObject(),
          evaluationId: context.evaluationId,
        });
        if (options.delayMs) await sleep(options.delayMs);
        const interaction = await ledger.getInteraction(context.subject.interactionId);
        return effects.complete(Evaluation.passed(`${id} saw ${interaction.agentId}`).withScore(0.5));
      },
    }),
  });
}
