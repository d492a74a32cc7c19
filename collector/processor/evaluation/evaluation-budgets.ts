/**
 * Token budgets: `budget: { tokens, per }` on an evaluator entry (all its bindings together) or on
 * a binding (that binding alone). Each budget is a sliding window (token-window.ts) of the input +
 * output tokens its evaluations' model calls used, read from their outcomes
 * (`gen_ai.usage.input_tokens` / `output_tokens`, failed outcomes included). While a budget is
 * spent, new evaluations of its entry or binding are not started: the runtime drops them from the
 * queue without an outcome (so `evalon backfill` can evaluate them later), and they are counted
 * here, with one warning a minute per entry.
 *
 * Only evaluations an interaction triggered are held to a budget, and only before their first
 * attempt: a backfill is a deliberate spend, and an evaluation already started finishes. Checking
 * an evaluation of an entry without any budget costs one set lookup.
 *
 * After a restart the windows are rebuilt from the outcomes the ledger recorded in them
 * (`restore`); a binding's share is told by the binding each record names in its provenance.
 */
import { formatDuration } from '../../../src/config/duration.ts';
import type { EvaluationRecord } from '../../../src/model/records.ts';
import type { EvaluationDefaultsConfig, EvaluatorEntryConfig } from '../../config/evalon-config.ts';
import type { QueuedEvaluation } from '../../ledger/evaluation-queue.ts';
import type { Logger } from '../../logger.ts';
import { USAGE_ATTRIBUTES } from '../../evaluators/usage-attributes.ts';
import { ANY_ROLE, bindingOf, describeSource, resolveBinding } from './binding-resolution.ts';
import type { Clock } from './clock.ts';
import { createTokenWindow, type TokenWindow } from './token-window.ts';

/** At most one warning per entry this often while its budgets keep skipping evaluations. */
export const BUDGET_LOG_INTERVAL_MS = 60_000;

/** A budget's state, for `GET /api/v1/stats`. */
export interface BudgetStats {
  /** The entry id. */
  evaluator: string;
  /** The binding (`agents::support-agent`) for a binding's budget; absent for the entry's. */
  binding?: string;
  /** Tokens spent in the window now. */
  spent: number;
  /** `tokens`. */
  limit: number;
  /** `per`, as written in the grammar of durations (`1h`). */
  window: string;
  /** Evaluations not started because this budget was spent, since the collector started. */
  skipped: number;
}

/** A budget that is spent, as `check` reports it. */
export interface SpentBudget {
  evaluatorId: string;
  binding?: string;
  window: TokenWindow;
}

export interface EvaluationBudgets {
  /** The spent budget that keeps `evaluation` from starting now, or undefined when it may start. */
  check(evaluation: QueuedEvaluation): SpentBudget | undefined;
  /** Counts the tokens of a recorded outcome against its entry's and binding's budgets. */
  spend(record: EvaluationRecord): void;
  /** Counts an evaluation dropped because `budget` was spent (and logs, at most once a minute per entry). */
  skipped(evaluation: QueuedEvaluation, budget: SpentBudget): void;
  /** What to read back at start: the entries with budgets, and outcomes since when. */
  restoreQuery(): { evaluatorIds: string[]; since: number };
  /** Rebuilds the windows from recorded outcomes (at start, before any evaluation runs). */
  restore(records: readonly EvaluationRecord[]): void;
  stats(): BudgetStats[];
}

interface Budget {
  evaluatorId: string;
  binding?: string;
  window: TokenWindow;
  skipped: number;
}

/** The budgets of `evaluators`, or undefined when none sets one (nothing to check). */
export function createEvaluationBudgets(options: {
  evaluators: Record<string, EvaluatorEntryConfig>;
  defaults: EvaluationDefaultsConfig;
  clock: Clock;
  logger: Logger;
}): EvaluationBudgets | undefined {
  const { evaluators, defaults, clock, logger } = options;
  const entryBudgets = new Map<string, Budget>();
  /** Keyed by entry id, then binding (`agents::support-agent`). */
  const bindingBudgets = new Map<string, Map<string, Budget>>();
  for (const [evaluatorId, entry] of Object.entries(evaluators)) {
    if (entry.budget) entryBudgets.set(evaluatorId, budgetOf(evaluatorId, entry.budget));
    const bindings = new Map<string, Budget>();
    for (const [group, byKey] of [
      ['agents', entry.agents],
      ['agent-roles', entry.agentRoles],
    ] as const) {
      for (const [key, binding] of Object.entries(byKey)) {
        if (!binding.budget) continue;
        const where = `${group}::${key === ANY_ROLE && group === 'agent-roles' ? ANY_ROLE : key}`;
        bindings.set(where, budgetOf(evaluatorId, binding.budget, where));
      }
    }
    if (bindings.size > 0) bindingBudgets.set(evaluatorId, bindings);
  }
  if (entryBudgets.size === 0 && bindingBudgets.size === 0) return undefined;
  const budgeted = new Set([...entryBudgets.keys(), ...bindingBudgets.keys()]);
  const all = [
    ...entryBudgets.values(),
    ...[...bindingBudgets.values()].flatMap((byBinding) => [...byBinding.values()]),
  ];
  const longestMs = Math.max(...all.map((budget) => budget.window.perMs));
  const logged = new Map<string, { at: number; suppressed: number }>();

  function bindingBudget(evaluation: QueuedEvaluation): Budget | undefined {
    const byBinding = bindingBudgets.get(evaluation.evaluatorId);
    const entry = evaluators[evaluation.evaluatorId];
    if (!byBinding || !entry) return undefined;
    const { source } = resolveBinding(evaluation.evaluatorId, entry, defaults, evaluation);
    return bindingOf(entry, source) ? byBinding.get(describeSource(source)) : undefined;
  }

  function charge(budget: Budget | undefined, atMs: number, tokens: number): void {
    if (budget && atMs > clock.now() - budget.window.perMs) budget.window.add(atMs, tokens);
  }

  function spend(record: EvaluationRecord, atMs: number): void {
    if (!budgeted.has(record.evaluatorId)) return;
    const tokens = tokensOf(record);
    if (tokens === 0) return;
    charge(entryBudgets.get(record.evaluatorId), atMs, tokens);
    const binding = record.provenance?.binding;
    if (binding !== undefined) charge(bindingBudgets.get(record.evaluatorId)?.get(binding), atMs, tokens);
  }

  return {
    check(evaluation) {
      if (!budgeted.has(evaluation.evaluatorId)) return undefined;
      const now = clock.now();
      for (const budget of [entryBudgets.get(evaluation.evaluatorId), bindingBudget(evaluation)])
        if (budget && budget.window.spent(now) >= budget.window.limit) return budget;
      return undefined;
    },
    spend: (record) => spend(record, clock.now()),
    skipped(evaluation, spent) {
      const budget = spent as Budget;
      budget.skipped++;
      const now = clock.now();
      const last = logged.get(evaluation.evaluatorId);
      if (last && now - last.at < BUDGET_LOG_INTERVAL_MS) {
        last.suppressed++;
        return;
      }
      const since = last ? ` (${last.suppressed + 1} skipped since the last report)` : '';
      logged.set(evaluation.evaluatorId, { at: now, suppressed: 0 });
      const which = budget.binding ? `the token budget of its binding ${budget.binding}` : 'its token budget';
      logger.warn(
        `evaluation: ${evaluation.evaluatorId}: ${which} is spent (${budget.window.spent(now)} of ` +
          `${budget.window.limit} tokens in the last ${formatDuration(budget.window.perMs)}); its new evaluations ` +
          `are skipped and not recorded${since} (raise budget::tokens, or run evalon backfill --evaluator ` +
          `${evaluation.evaluatorId} once it has room)`,
      );
    },
    restoreQuery: () => ({ evaluatorIds: [...budgeted], since: clock.now() - longestMs }),
    restore(records) {
      const ordered = [...records].sort((a, b) => Date.parse(a.completedAt) - Date.parse(b.completedAt));
      for (const record of ordered) spend(record, Date.parse(record.completedAt));
    },
    stats() {
      const now = clock.now();
      return all.map((budget) => ({
        evaluator: budget.evaluatorId,
        ...(budget.binding !== undefined ? { binding: budget.binding } : {}),
        spent: budget.window.spent(now),
        limit: budget.window.limit,
        window: formatDuration(budget.window.perMs),
        skipped: budget.skipped,
      }));
    },
  };
}

function budgetOf(evaluatorId: string, config: { tokens: number; perMs: number }, binding?: string): Budget {
  return {
    evaluatorId,
    ...(binding !== undefined ? { binding } : {}),
    window: createTokenWindow(config.tokens, config.perMs),
    skipped: 0,
  };
}

/** Input + output tokens an outcome reports (a verdict's attributes, or what a failed judge spent). */
export function tokensOf(record: EvaluationRecord): number {
  const outcome = record.outcome;
  const attributes =
    outcome.type === 'verdict'
      ? outcome.evaluation.attributes
      : outcome.type === 'failed'
        ? outcome.attributes
        : undefined;
  if (!attributes) return 0;
  const count = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : 0);
  return count(attributes[USAGE_ATTRIBUTES.inputTokens]) + count(attributes[USAGE_ATTRIBUTES.outputTokens]);
}
