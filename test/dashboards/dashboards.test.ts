/**
 * The dashboards built as code: the committed JSON is what the generator writes, the dashboard
 * has the variables and panels docs/grafana.md describes, and every query reads metrics that a
 * real scrape of the collector's Prometheus endpoint carries, with labels it has.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DASHBOARDS_DIR, renderDashboards } from '../../dashboards/build.ts';
import { createTelemetryExporters, type TelemetryExporters } from '../../collector/exporter/index.ts';
import { silentLogger } from '../../collector/logger.ts';
import type { EvaluationRecord } from '../../src/model/records.ts';
import { scrape, type Sample } from '../helpers/prometheus-text.ts';
import { CONVERSATION_VERDICT, OUTCOMES, interaction, telemetryConfig } from '../helpers/telemetry-fixtures.ts';
import { committedDashboards, labelValuesQuery, metricNames, panelQueries } from './dashboard-queries.ts';

describe('the committed dashboards', () => {
  it('are what `npm run dashboards` writes (regenerate them after changing dashboards/*.ts)', () => {
    const rendered = renderDashboards();
    expect(Object.keys(rendered).length).toBeGreaterThan(0);
    for (const [file, text] of Object.entries(rendered)) {
      let committed = '';
      try {
        committed = readFileSync(join(DASHBOARDS_DIR, file), 'utf8');
      } catch {
        // Reported by the comparison below.
      }
      expect(committed, `dashboards/json/${file} is stale: run \`npm run dashboards\` and commit the result`).toBe(
        text,
      );
    }
    expect(
      committedDashboards()
        .map(({ file }) => file)
        .sort(),
    ).toEqual(Object.keys(rendered).sort());
  });

  it('filter by agent and evaluator (multi-value, with All) and let the data source be chosen', () => {
    const [{ dashboard }] = committedDashboards();
    const variables = Object.fromEntries(dashboard.templating.list.map((variable) => [variable.name, variable]));
    expect(variables.datasource).toMatchObject({ type: 'datasource', query: 'prometheus' });
    for (const name of ['agent', 'evaluator']) {
      expect(variables[name], name).toMatchObject({ type: 'query', multi: true, includeAll: true, allValue: '.*' });
      expect(labelValuesQuery(variables[name].query)?.label).toBe(name);
    }
    // Every panel reads the chosen data source.
    for (const panel of dashboard.panels.filter((panel) => panel.type !== 'row'))
      expect(panel.datasource, panel.title).toEqual({ type: 'prometheus', uid: '${datasource}' });
  });

  it('have the panels the issue lists', () => {
    const [{ dashboard }] = committedDashboards();
    const titles = dashboard.panels.map((panel) => panel.title);
    expect(titles).toEqual(
      expect.arrayContaining([
        'Pass rate by agent and evaluator',
        'Score distribution',
        'Verdict lag',
        'Failures, inconclusives and errors by evaluator',
        'Judge tokens by evaluator',
        'Ingest rate',
        'Pending interactions and evaluation queue',
        'Conversation pass rate',
        'Conversation pass rate by agent and evaluator',
        'Conversation verdicts by outcome',
        'Agreement between entries',
      ]),
    );
    const ids = dashboard.panels.map((panel) => panel.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const query of panelQueries()) expect(query.refId, `${query.panel}`).toMatch(/^[A-Z]$/);
  });
});

describe('the dashboard queries against a real scrape', () => {
  let telemetry: TelemetryExporters;
  let samples: Sample[];
  beforeAll(async () => {
    telemetry = createTelemetryExporters(telemetryConfig({ prometheus: true, metrics: ['prometheus'] }), {
      logger: silentLogger,
    });
    await telemetry.start();
    telemetry.onInteractionsRecorded([interaction()]);
    telemetry.metrics.observe({
      spansReceived: () => 4,
      pendingTraces: () => 1,
      pendingSpans: () => 2,
      waitingTraces: () => 0,
      evaluationQueueSize: () => 0,
      evaluationsRunning: () => 0,
      agreement: () => [{ a: 'llm-judge', b: 'human-review', rate: 0.8, kappa: 0.55, scoreMae: 0.1 }],
    });
    for (const record of Object.values(OUTCOMES)) telemetry.verdicts.record(record as EvaluationRecord);
    telemetry.verdicts.record(CONVERSATION_VERDICT as EvaluationRecord);
    telemetry.metrics.recordTokenUsage({
      evaluatorId: 'quality-judge',
      agentId: 'support-agent',
      provider: 'anthropic',
      model: 'judge',
      inputTokens: 100,
      outputTokens: 10,
    });
    ({ samples } = await scrape(telemetry.prometheusAddress()!));
  });
  afterAll(async () => {
    await telemetry?.shutdown();
  });

  it('read only metrics the collector exposes', () => {
    const exposed = new Set(samples.map((sample) => sample.name));
    for (const query of panelQueries()) {
      const names = metricNames(query.expr);
      expect(names.length, `${query.panel} ${query.refId}: no metric in ${query.expr}`).toBeGreaterThan(0);
      for (const name of names)
        expect(exposed.has(name), `${query.panel} ${query.refId} reads ${name}, which the scrape does not have`).toBe(
          true,
        );
    }
  });

  it('group and filter by labels those metrics carry', () => {
    for (const query of panelQueries()) {
      const labels = new Set<string>();
      for (const match of query.expr.matchAll(/\b(?:by|without)\s*\(([^)]*)\)/g))
        for (const label of match[1].split(',')) labels.add(label.trim());
      for (const match of query.expr.matchAll(/([a-z_]+)\s*=~?\s*"/g)) labels.add(match[1]);
      labels.delete('');
      for (const name of metricNames(query.expr)) {
        const carried = new Set(
          samples.filter((sample) => sample.name === name).flatMap((sample) => Object.keys(sample.labels)),
        );
        // Grafana's "All" (.*) also matches a missing label, so filters need not be carried; groupings must.
        for (const label of labels) {
          if (
            new RegExp(`${label}\\s*=~?\\s*"`).test(query.expr) &&
            !new RegExp(`by\\s*\\([^)]*\\b${label}\\b`).test(query.expr)
          )
            continue;
          expect(
            carried.has(label),
            `${query.panel} ${query.refId} groups ${name} by ${label}, which it does not carry`,
          ).toBe(true);
        }
      }
    }
  });

  it('fill the variables from labels the scrape has', () => {
    const [{ dashboard }] = committedDashboards();
    for (const variable of dashboard.templating.list.filter((entry) => entry.type === 'query')) {
      const query = labelValuesQuery(variable.query)!;
      const values = samples
        .filter((sample) => sample.name === query.metric)
        .map((sample) => sample.labels[query.label]);
      expect(values.filter(Boolean).length, variable.name).toBeGreaterThan(0);
    }
  });
});
