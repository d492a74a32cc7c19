/** Reads the committed dashboards: their PromQL expressions and variable queries. */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DASHBOARDS_DIR } from '../../dashboards/build.ts';

export interface DashboardJson {
  uid: string;
  title: string;
  panels: Array<{
    id: number;
    type: string;
    title: string;
    targets?: Array<{ refId: string; expr: string; legendFormat?: string }>;
    datasource?: { type: string; uid: string };
  }>;
  templating: {
    list: Array<{
      name: string;
      type: string;
      query: unknown;
      multi?: boolean;
      includeAll?: boolean;
      allValue?: string;
    }>;
  };
}

export function committedDashboards(): Array<{ file: string; dashboard: DashboardJson }> {
  return readdirSync(DASHBOARDS_DIR)
    .filter((file) => file.endsWith('.json'))
    .sort()
    .map((file) => ({
      file,
      dashboard: JSON.parse(readFileSync(join(DASHBOARDS_DIR, file), 'utf8')) as DashboardJson,
    }));
}

export interface PanelQuery {
  file: string;
  panel: string;
  refId: string;
  expr: string;
}

export function panelQueries(): PanelQuery[] {
  return committedDashboards().flatMap(({ file, dashboard }) =>
    dashboard.panels.flatMap((panel) =>
      (panel.targets ?? []).map((target) => ({ file, panel: panel.title, refId: target.refId, expr: target.expr })),
    ),
  );
}

/**
 * A panel's expression as Prometheus would receive it: every variable at "All" (`.*`), the
 * intervals at values that suit a short test run.
 */
export function expand(expr: string, intervals: { rate: string; range: string } = { rate: '1m', range: '1h' }): string {
  return expr
    .replaceAll('$__rate_interval', intervals.rate)
    .replaceAll('$__range', intervals.range)
    .replaceAll('$__interval', intervals.rate)
    .replace(/\$(agent|evaluator)\b/g, '.*');
}

/** Metric names an expression reads (identifiers followed by a selector or a range). */
export function metricNames(expr: string): string[] {
  const names = new Set<string>();
  for (const match of expr.matchAll(/\b([a-zA-Z_:][a-zA-Z0-9_:]*)\s*(?=\{|\[)/g)) names.add(match[1]);
  // Bare selectors such as sum(evalon_pending_traces).
  for (const match of expr.matchAll(/(?<!\b(?:by|without)\s*)\(\s*([a-z_:][a-z0-9_:]*)\s*\)/g)) names.add(match[1]);
  return [...names];
}

/** `label_values(metric{…}, label)` of a variable query. */
export function labelValuesQuery(query: unknown): { metric: string; label: string; selector: string } | undefined {
  const text = typeof query === 'string' ? query : (query as { query?: string } | undefined)?.query;
  const match = /^label_values\(\s*([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})?\s*,\s*([a-zA-Z_][a-zA-Z0-9_]*)\s*\)$/.exec(
    text ?? '',
  );
  return match ? { metric: match[1], selector: match[2] ?? '', label: match[3] } : undefined;
}
