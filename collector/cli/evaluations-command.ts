/**
 * `evalon ledger evaluations <interactionId>`: the evaluations recorded for one interaction, read
 * through the API (`GET /api/v1/interactions/{id}/evaluations`), as a table or as JSON.
 */
import type { EvaluationRecord } from '../../src/model/records.ts';
import { CommandFailure, getJson, type ApiAccess, type CliIo } from './api-client.ts';

/** Width of the explanation column. */
const DETAIL_WIDTH = 70;

export async function showEvaluations(
  api: URL,
  interactionId: string,
  options: { json: boolean; where: string; access?: ApiAccess },
  io: CliIo,
): Promise<void> {
  const url = new URL(`api/v1/interactions/${encodeURIComponent(interactionId)}/evaluations`, api);
  const explain = (status: number) => (status === 404 ? `interaction ${interactionId} not found` : undefined);
  const body = (await getJson(url, options.where, explain, options.access)) as {
    evaluations?: EvaluationRecord[];
  };
  if (!Array.isArray(body?.evaluations))
    throw new CommandFailure(`${options.where}: ${url} did not answer an evaluation list`, 1);
  if (options.json) {
    io.out(JSON.stringify(body.evaluations, null, 2));
    return;
  }
  printEvaluations(interactionId, body.evaluations, io);
}

/** pass / fail / inconclusive / error, as the verdict metrics name outcomes. */
export function outcomeWord(record: EvaluationRecord): string {
  const outcome = record.outcome;
  if (outcome.type === 'verdict') return outcome.evaluation.passed ? 'pass' : 'fail';
  return outcome.type === 'inconclusive' ? 'inconclusive' : 'error';
}

function detail(record: EvaluationRecord): string {
  const outcome = record.outcome;
  const text =
    outcome.type === 'verdict'
      ? outcome.evaluation.explanation
      : outcome.type === 'inconclusive'
        ? outcome.reason
        : `${outcome.errorType ?? 'Error'}: ${outcome.error}`;
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > DETAIL_WIDTH ? `${flat.slice(0, DETAIL_WIDTH - 1)}…` : flat;
}

function printEvaluations(interactionId: string, records: EvaluationRecord[], io: CliIo): void {
  if (records.length === 0) {
    io.out(`no evaluations recorded for ${interactionId} (yet: evaluations run in the background)`);
    return;
  }
  const header = ['COMPLETED', 'EVALUATOR', 'VERSION', 'OUTCOME', 'SCORE', 'LABEL', 'CONTROL', 'ATTEMPTS', 'DETAIL'];
  const rows = records.map((r) => {
    const evaluation = r.outcome.type === 'verdict' ? r.outcome.evaluation : undefined;
    return [
      r.completedAt.replace(/\.\d+Z$/, 'Z'),
      r.evaluatorId,
      r.evaluatorVersion,
      outcomeWord(r),
      evaluation?.score === undefined ? '-' : String(evaluation.score),
      evaluation?.label ?? '-',
      r.controlId ?? '-',
      String(r.attempts),
      detail(r),
    ];
  });
  const widths = header.map((title, i) => Math.max(title.length, ...rows.map((row) => row[i].length)));
  for (const row of [header, ...rows])
    io.out(
      row
        .map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i])))
        .join('  ')
        .trimEnd(),
    );
}
