/**
 * What a built-in evaluator reads of its subject: the interaction, or every interaction of the
 * conversation revision in order; and for the LLM judges, the turns of the transcript: one per
 * interaction, each the judge's own rendering of it (`judgeTranscript`) labelled with the
 * interaction's id, so the judge reads `[turn 2 of 5] <interaction id>` before each turn (the
 * judge's shortening, src/judge/shorten-transcript.ts, leaves whole early turns out first).
 */
import type { Subject } from '../../src/evaluation/evaluation-context.ts';
import type { LedgerClient } from '../../src/evaluation/ledger-client.ts';
import type { TranscriptTurn } from '../../src/judge/shorten-transcript.ts';
import type { JudgeTranscriptEntry } from '../../src/judge/transcript.ts';
import type { InteractionRecord } from '../../src/model/records.ts';
import { judgeTranscript } from './llm-judge-support.ts';

/** The subject's interactions: one, or the conversation's up to its revision's end, in order. */
export async function subjectInteractions(ledger: LedgerClient, subject: Subject): Promise<InteractionRecord[]> {
  if (subject.kind !== 'conversation') return [await ledger.getInteraction(subject.interactionId)];
  return Promise.all(subject.interactionIds.map((id) => ledger.getInteraction(id)));
}

/** What the judges read of the interactions. */
export interface SubjectTranscript {
  /** Every entry, in order (empty: nothing to judge). */
  entries: JudgeTranscriptEntry[];
  /** One turn per interaction, labelled, for a conversation; undefined for one interaction. */
  turns?: TranscriptTurn[];
}

/** The judge's transcript of the interactions: one as it is, several as labelled turns. */
export function subjectTranscript(interactions: readonly InteractionRecord[]): SubjectTranscript {
  if (interactions.length === 1) return { entries: judgeTranscript(interactions[0]) };
  const turns = interactions.map((interaction) => ({
    label: interaction.interactionId,
    entries: judgeTranscript(interaction),
  }));
  return { entries: turns.flatMap((turn) => turn.entries), turns };
}

/** Whether the subject is a conversation, for wording ("the conversation" or "the interaction"). */
export function subjectNoun(subject: Subject): 'conversation' | 'interaction' {
  return subject.kind === 'conversation' ? 'conversation' : 'interaction';
}
