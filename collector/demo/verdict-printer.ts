/**
 * Polls the collector's API for the evaluations of the demo's interactions, and of its
 * conversations, and prints each once.
 */
import type { CliIo } from '../cli/cli-io.ts';

export interface EvaluationView {
  /** The interaction (or the conversation's last interaction) evaluated. */
  interactionId: string;
  evaluatorId: string;
  outcome: 'pass' | 'fail' | 'inconclusive' | 'error';
  detail: string;
}

interface ApiEvaluation {
  evaluationId: string;
  interactionId: string;
  evaluatorId: string;
  outcome:
    | { type: 'verdict'; evaluation: { passed: boolean; explanation: string; score?: number } }
    | { type: 'inconclusive'; reason: string }
    | { type: 'failed'; error: string };
}

const MARK = { pass: '✓', fail: '✗', inconclusive: '?', error: '!' } as const;

export function viewOf(evaluation: ApiEvaluation): EvaluationView {
  const { outcome, interactionId } = evaluation;
  if (outcome.type === 'verdict') {
    return {
      interactionId,
      evaluatorId: evaluation.evaluatorId,
      outcome: outcome.evaluation.passed ? 'pass' : 'fail',
      detail: outcome.evaluation.explanation,
    };
  }
  if (outcome.type === 'inconclusive')
    return { interactionId, evaluatorId: evaluation.evaluatorId, outcome: 'inconclusive', detail: outcome.reason };
  return { interactionId, evaluatorId: evaluation.evaluatorId, outcome: 'error', detail: outcome.error };
}

/** Where to read evaluations (an API path answering `{ evaluations }`) and how to name them. */
export interface VerdictSource {
  path: string;
  label: string;
}

/** An interaction's evaluations, named by its question. */
export function interactionSource(interactionId: string, question: string): VerdictSource {
  return { path: `/api/v1/interactions/${encodeURIComponent(interactionId)}/evaluations`, label: question };
}

/** A conversation's evaluations (every revision's), named as the conversation. */
export function conversationSource(conversationId: string, agentId: string): VerdictSource {
  return {
    path:
      `/api/v1/conversations/${encodeURIComponent(conversationId)}/evaluations` +
      `?agent=${encodeURIComponent(agentId)}`,
    label: `[conversation ${conversationId}]`,
  };
}

/**
 * Prints evaluations as they appear, until none has come for two seconds (after the first) or the
 * time is up. Resolves to everything printed.
 */
export async function printVerdicts(
  apiUrl: string,
  sources: VerdictSource[],
  io: CliIo,
  options: { timeoutMs: number },
): Promise<EvaluationView[]> {
  const printed = new Set<string>();
  const views: EvaluationView[] = [];
  const deadline = Date.now() + options.timeoutMs;
  const quietAfter = 2_000;
  let lastNew = Date.now();
  while (Date.now() < deadline) {
    for (const { path, label } of sources) {
      const response = await fetch(`${apiUrl}${path}`);
      if (response.status !== 200) {
        await response.arrayBuffer();
        continue;
      }
      const { evaluations } = (await response.json()) as { evaluations: ApiEvaluation[] };
      for (const evaluation of evaluations) {
        if (printed.has(evaluation.evaluationId)) continue;
        printed.add(evaluation.evaluationId);
        const view = viewOf(evaluation);
        views.push(view);
        lastNew = Date.now();
        io.out(
          `  ${MARK[view.outcome]} ${view.evaluatorId.padEnd(29)} ${view.outcome.padEnd(12)} ` +
            `${truncate(label, 44).padEnd(44)}  ${truncate(view.detail, 70)}`,
        );
      }
    }
    // Every source has its evaluations and nothing new came for a while: done.
    if (views.length > 0 && Date.now() - lastNew > quietAfter) break;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return views;
}

/** One line of at most `width` characters (an explanation may span lines: criteria-judge writes one a criterion). */
function truncate(text: string, width: number): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length <= width ? line : `${line.slice(0, width - 1)}…`;
}
