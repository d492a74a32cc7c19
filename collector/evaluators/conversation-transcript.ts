/**
 * What a built-in evaluator reads of its subject: the interaction, or every interaction of the
 * conversation revision in order; and for the LLM judges, the transcript of all of them, turn by
 * turn. The turns are marked with an `[event] turn 2 of 5` entry naming the interaction, between
 * the judge's own rendering of each interaction (`judgeTranscript`): a thin layer over it.
 */
import type { Subject } from '../../src/evaluation/evaluation-context.ts';
import type { LedgerClient } from '../../src/evaluation/ledger-client.ts';
import type { JudgeTranscriptEntry } from '../../src/judge/transcript.ts';
import type { InteractionRecord } from '../../src/model/records.ts';
import { judgeTranscript } from './llm-judge-support.ts';

/** The subject's interactions: one, or the conversation's up to its revision's end, in order. */
export async function subjectInteractions(ledger: LedgerClient, subject: Subject): Promise<InteractionRecord[]> {
  if (subject.kind !== 'conversation') return [await ledger.getInteraction(subject.interactionId)];
  return Promise.all(subject.interactionIds.map((id) => ledger.getInteraction(id)));
}

/** The judge's transcript of the interactions: one as it is, several with each turn marked. */
export function subjectTranscript(interactions: readonly InteractionRecord[]): JudgeTranscriptEntry[] {
  if (interactions.length === 1) return judgeTranscript(interactions[0]);
  return interactions.flatMap((interaction, index) => [
    {
      type: 'event' as const,
      name: `turn ${index + 1} of ${interactions.length}`,
      data: { interactionId: interaction.interactionId, startTime: interaction.startTime },
    },
    ...judgeTranscript(interaction),
  ]);
}

/** Whether the subject is a conversation, for wording ("the conversation" or "the interaction"). */
export function subjectNoun(subject: Subject): 'conversation' | 'interaction' {
  return subject.kind === 'conversation' ? 'conversation' : 'interaction';
}
