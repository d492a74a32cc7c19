/**
 * The verdicts recorded for a conversation, one comment line each, for the top of its rehearsal:
 * `recorded: criteria-judge revision 1: fail — "…"`. A conversation's verdicts come first (by
 * revision), then those of single turns (by turn).
 */
import type { EvaluationRecord } from '../../model/records.ts';

/** Longest explanation quoted in a line; the rest is in the ledger (`evalon ledger evaluations`). */
export const MAX_EXPLANATION_CHARS = 200;

export function verdictLines(evaluations: readonly EvaluationRecord[], interactionIds: readonly string[]): string[] {
  const placed = evaluations.map((record) => {
    const subject = record.subject;
    if (subject?.kind === 'conversation')
      return { record, rank: 0, order: subject.revision, at: `revision ${subject.revision}` };
    const turn = interactionIds.indexOf(record.interactionId) + 1;
    return { record, rank: 1, order: turn, at: turn > 0 ? `turn ${turn}` : `interaction ${record.interactionId}` };
  });
  placed.sort(
    (a, b) => a.rank - b.rank || a.order - b.order || a.record.evaluatorId.localeCompare(b.record.evaluatorId),
  );
  return placed.map(({ record, at }) => {
    const [outcome, text] = describeOutcome(record);
    const shadow = record.shadow ? ' (shadow)' : '';
    return `recorded: ${record.evaluatorId} ${at}: ${outcome}${shadow} — ${JSON.stringify(shorten(text))}`;
  });
}

function describeOutcome(record: EvaluationRecord): [string, string] {
  const outcome = record.outcome;
  switch (outcome.type) {
    case 'verdict':
      return [outcome.evaluation.passed ? 'pass' : 'fail', outcome.evaluation.explanation];
    case 'inconclusive':
      return ['inconclusive', outcome.reason];
    case 'failed':
      return ['failed', outcome.error];
  }
}

/** One line: lines joined by "; ", spaces collapsed, cut at MAX_EXPLANATION_CHARS with "…". */
function shorten(text: string): string {
  const line = text
    .split('\n')
    .map((part) => part.replace(/\s+/g, ' ').trim())
    .filter((part) => part !== '')
    .join('; ');
  return line.length <= MAX_EXPLANATION_CHARS ? line : `${line.slice(0, MAX_EXPLANATION_CHARS - 1)}…`;
}
