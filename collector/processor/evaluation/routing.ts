/**
 * Routing: an evaluator entry whose properties set `after: <entry id>` is not triggered by
 * interactions; it is queued for a subject when that other entry records a matching outcome for
 * it — `when` (a list of `pass`, `fail`, `inconclusive`, `error`) names the outcomes, and
 * `score_below: 0.6` adds verdicts scoring below it. `when` defaults to `[fail]` unless
 * `score_below` is set alone. The properties are read from the entry's binding for the subject's
 * agent (the binding over the entry, as `config()` merges them), so a binding may route
 * differently; an agent without an enabled binding of the routed entry routes nothing. Every
 * matching outcome is routed: the binding's `sampling-ratio` picks subjects of interactions, not
 * outcomes.
 *
 * The routed evaluation is queued in the transaction that records the outcome it follows
 * (`recordEvaluationsWithFollowUps`), exactly once per (subject, entry, version) by the queue's
 * unique keys. Pure but for the evaluation ids it draws.
 */
import { randomUUID } from 'node:crypto';
import type { EvaluationRecord } from '../../../src/model/records.ts';
import { type Route, routeMatches, routeOf } from './route.ts';

export { outcomeOf, ROUTED_OUTCOMES, type Route, type RoutedOutcome, routeMatches, routeOf } from './route.ts';
import type { QueuedEvaluation } from '../../ledger/evaluation-queue.ts';
import type { ResolvedBinding } from './binding-resolution.ts';
import type { EvaluatorEntryConfig } from './config.ts';
import type { EvaluatorRegistry } from './evaluator-registry.ts';
import type { BindingTable } from './triggers.ts';

export interface RoutingTable {
  /** The evaluations `record` routes, for the subject of `evaluation` (the one recorded). */
  followUps(record: EvaluationRecord, evaluation: QueuedEvaluation, triggeredAt: string): QueuedEvaluation[];
  /** The ids of entries routed for some binding (agreement calls their samples routed). */
  routedEntries(): ReadonlySet<string>;
}

export function createRoutingTable(options: {
  bindings: BindingTable;
  registry: Pick<EvaluatorRegistry, 'get'>;
  evaluators: Readonly<Record<string, EvaluatorEntryConfig>>;
}): RoutingTable {
  const { bindings, registry } = options;
  const routes = new WeakMap<ResolvedBinding, Route | null>();
  const routeFor = (binding: ResolvedBinding): Route | undefined => {
    let route = routes.get(binding);
    if (route === undefined) {
      route = routeOf(binding.config) ?? null;
      routes.set(binding, route);
    }
    return route ?? undefined;
  };
  const routed = new Set<string>();
  for (const [id, entry] of Object.entries(options.evaluators)) {
    const bindingProperties = [...Object.values(entry.agents), ...Object.values(entry.agentRoles)].map(
      (binding) => binding.properties,
    );
    if ([{}, ...bindingProperties].some((properties) => routeOf({ ...entry.properties, ...properties })))
      routed.add(id);
  }
  return {
    followUps(record, evaluation, triggeredAt) {
      if (routed.size === 0) return [];
      const followUps: QueuedEvaluation[] = [];
      for (const binding of bindings.resolve({ agentId: evaluation.agentId, roles: evaluation.roles ?? [] })) {
        if (!binding.enabled || binding.evaluatorId === record.evaluatorId) continue;
        const route = routeFor(binding);
        if (!route || !routeMatches(route, record)) continue;
        const definition = registry.get(binding.evaluatorId);
        if (!definition) continue;
        const { attempts: _a, startedAt: _s, seq: _q, progress: _p, signal: _g, cause: _c, ...subject } = evaluation;
        followUps.push({
          ...subject,
          evaluationId: randomUUID(),
          evaluatorId: binding.evaluatorId,
          // The entry's own version, else the evaluator's, as for a triggered evaluation.
          evaluatorVersion: binding.version ?? definition.version,
          triggeredAt,
          attempts: 0,
          cause: { kind: 'routed', after: record.evaluatorId, record },
        });
      }
      return followUps;
    },
    routedEntries: () => routed,
  };
}
