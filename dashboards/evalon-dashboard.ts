/**
 * The Evalon dashboard, as code (Grafana Foundation SDK): verdicts by agent and evaluator,
 * scores, verdict lag, non-passing outcomes, judge tokens, ingest and queue health, the verdicts on
 * whole conversations (`subject="conversation"`), and agreement between evaluator entries. Every query
 * reads the Prometheus names of docs/metrics.md; `agent` and `evaluator` filter every panel
 * that has those labels. `npm run dashboards` writes it to dashboards/json/.
 */
import * as common from '@grafana/grafana-foundation-sdk/common';
import * as dashboard from '@grafana/grafana-foundation-sdk/dashboard';
import * as heatmap from '@grafana/grafana-foundation-sdk/heatmap';
import * as prometheus from '@grafana/grafana-foundation-sdk/prometheus';
import * as stat from '@grafana/grafana-foundation-sdk/stat';
import * as timeseries from '@grafana/grafana-foundation-sdk/timeseries';

export const DASHBOARD_UID = 'evalon-overview';
/**
 * The provisioned data source (provisioning/datasources/evalon-prometheus.yaml); the dashboard also
 * lets one pick another.
 */
export const DATASOURCE_UID = 'evalon-prometheus';

const DATASOURCE: { type: string; uid: string } = { type: 'prometheus', uid: '${datasource}' };
/** Every panel's selector of the evaluation metrics. */
const FILTER = 'agent=~"$agent", evaluator=~"$evaluator"';
const RATE = '$__rate_interval';

function query(expr: string, legend: string): prometheus.DataqueryBuilder {
  return new prometheus.DataqueryBuilder().expr(expr).legendFormat(legend).range();
}

function timeseriesPanel(
  title: string,
  description: string,
  unit: string,
  queries: prometheus.DataqueryBuilder[],
): timeseries.PanelBuilder {
  const panel = new timeseries.PanelBuilder()
    .title(title)
    .description(description)
    .datasource(DATASOURCE)
    .unit(unit)
    .lineWidth(1)
    .fillOpacity(10)
    .legend(
      new common.VizLegendOptionsBuilder()
        .showLegend(true)
        .displayMode(common.LegendDisplayMode.List)
        .placement(common.LegendPlacement.Bottom),
    );
  for (const target of queries) panel.withTarget(target);
  return panel;
}

function statPanel(
  title: string,
  description: string,
  unit: string,
  target: prometheus.DataqueryBuilder,
): stat.PanelBuilder {
  return new stat.PanelBuilder()
    .title(title)
    .description(description)
    .datasource(DATASOURCE)
    .unit(unit)
    .colorMode(common.BigValueColorMode.None)
    .reduceOptions(new common.ReduceDataOptionsBuilder().calcs(['lastNotNull']).values(false))
    .withTarget(target);
}

function variable(name: string, label: string, query: string): dashboard.QueryVariableBuilder {
  return new dashboard.QueryVariableBuilder(name)
    .label(label)
    .datasource(DATASOURCE)
    .query(query)
    .definition(query)
    .refresh(dashboard.VariableRefresh.OnTimeRangeChanged)
    .sort(dashboard.VariableSort.AlphabeticalAsc)
    .multi(true)
    .includeAll(true)
    .allValue('.*')
    .current({ text: 'All', value: '$__all' });
}

/**
 * Passing verdicts among pass and fail verdicts; `sum` or `sum by (…)`; `extra` narrows the
 * selector. Shadow evaluator entries (`shadow="true"`) are left out; series without the label
 * (older collectors) count.
 */
const passRate = (sum: string, range: string, extra = '') =>
  `${sum} (increase(evalon_evaluations_total{${FILTER}${extra}, outcome="pass", shadow!="true"}[${range}]))` +
  ` / ${sum} (increase(evalon_evaluations_total{${FILTER}${extra}, outcome=~"pass|fail", shadow!="true"}[${range}]))`;
/** The selector of verdicts on whole conversations. */
const CONVERSATIONS = ', subject="conversation"';

/** Panel ids and query refIds, which Grafana needs and the builders leave to the author. */
function numbered(built: dashboard.Dashboard): dashboard.Dashboard {
  for (const [index, panel] of (built.panels ?? []).entries()) {
    panel.id = index + 1;
    const targets = (panel as { targets?: Array<{ refId?: string }> }).targets ?? [];
    for (const [n, target] of targets.entries()) target.refId = String.fromCharCode(65 + n);
  }
  return built;
}

export function buildEvalonDashboard(): dashboard.Dashboard {
  return numbered(buildPanels());
}

function buildPanels(): dashboard.Dashboard {
  return new dashboard.DashboardBuilder('Evalon — agent evaluations')
    .uid(DASHBOARD_UID)
    .description(
      'Verdicts of the evaluators Evalon runs on agent interactions, ' +
        'and the health of the collector. Metrics: docs/metrics.md.',
    )
    .tags(['evalon', 'llm', 'evaluation', 'opentelemetry'])
    .editable()
    .tooltip(dashboard.DashboardCursorSync.Crosshair)
    .time({ from: 'now-1h', to: 'now' })
    .refresh('30s')
    .timezone('browser')
    .withVariable(
      new dashboard.DatasourceVariableBuilder('datasource')
        .label('Data source')
        .type('prometheus')
        .current({ text: 'Evalon Prometheus', value: DATASOURCE_UID }),
    )
    .withVariable(variable('agent', 'Agent', 'label_values(evalon_evaluations_total, agent)'))
    .withVariable(
      variable('evaluator', 'Evaluator', 'label_values(evalon_evaluations_total{agent=~"$agent"}, evaluator)'),
    )

    .withRow(new dashboard.RowBuilder('Verdicts'))
    .withPanel(
      statPanel(
        'Pass rate',
        'Passing verdicts among pass and fail verdicts over the dashboard range (inconclusive and failed ' +
          'evaluations are not verdicts; shadow evaluator entries are left out).',
        'percentunit',
        query(passRate('sum', '$__range'), 'pass rate'),
      )
        .gridPos({ h: 6, w: 4, x: 0, y: 1 })
        .min(0)
        .max(1),
    )
    .withPanel(
      statPanel(
        'Evaluations',
        'Outcomes recorded over the dashboard range.',
        'short',
        query(`sum(increase(evalon_evaluations_total{${FILTER}}[$__range]))`, 'evaluations'),
      ).gridPos({ h: 6, w: 4, x: 0, y: 7 }),
    )
    .withPanel(
      timeseriesPanel(
        'Pass rate by agent and evaluator',
        'Passing verdicts among pass and fail verdicts, per agent and evaluator (shadow entries left out).',
        'percentunit',
        [query(passRate('sum by (agent, evaluator)', RATE), '{{agent}} / {{evaluator}}')],
      )
        .gridPos({ h: 12, w: 20, x: 4, y: 1 })
        .min(0)
        .max(1),
    )
    .withPanel(
      timeseriesPanel(
        'Failures, inconclusives and errors by evaluator',
        'Fail verdicts, inconclusive evaluations and failed evaluations ' +
          '(the evaluator threw or timed out: error), per evaluator.',
        'short',
        [
          query(
            `sum by (evaluator, outcome) (increase(evalon_evaluations_total{${FILTER}, ` +
              `outcome=~"fail|inconclusive|error"}[${RATE}]))`,
            '{{evaluator}} {{outcome}}',
          ),
        ],
      )
        .drawStyle(common.GraphDrawStyle.Bars)
        .stacking(new common.StackingConfigBuilder().mode(common.StackingMode.Normal))
        .fillOpacity(80)
        .gridPos({ h: 9, w: 24, x: 0, y: 13 }),
    )

    .withRow(new dashboard.RowBuilder('Scores'))
    .withPanel(
      new heatmap.PanelBuilder()
        .title('Score distribution')
        .description('Scores of the verdicts that carry one (evaluator scale, 0..1 usually), bucketed.')
        .datasource(DATASOURCE)
        .calculate(false)
        .withTarget(
          query(`sum by (le) (increase(evalon_evaluation_score_bucket{${FILTER}}[${RATE}]))`, '{{le}}').format(
            prometheus.PromQueryFormat.Heatmap,
          ),
        )
        .gridPos({ h: 9, w: 12, x: 0, y: 23 }),
    )
    .withPanel(
      timeseriesPanel('Mean score by evaluator', 'Average score of scored verdicts, per evaluator.', 'short', [
        query(
          `sum by (evaluator) (rate(evalon_evaluation_score_sum{${FILTER}}[${RATE}])) / sum by (evaluator) ` +
            `(rate(evalon_evaluation_score_count{${FILTER}}[${RATE}]))`,
          '{{evaluator}}',
        ),
      ]).gridPos({ h: 9, w: 12, x: 12, y: 23 }),
    )

    .withRow(new dashboard.RowBuilder('Latency'))
    .withPanel(
      timeseriesPanel(
        'Verdict lag',
        'Time from the end of an interaction to its recorded outcome (settle window, queueing and evaluation).',
        's',
        [
          query(`histogram_quantile(0.5, sum by (le) (rate(evalon_evaluation_lag_bucket{${FILTER}}[${RATE}])))`, 'p50'),
          query(
            `histogram_quantile(0.95, sum by (le) (rate(evalon_evaluation_lag_bucket{${FILTER}}[${RATE}])))`,
            'p95',
          ),
        ],
      ).gridPos({ h: 9, w: 12, x: 0, y: 33 }),
    )
    .withPanel(
      timeseriesPanel(
        'Evaluation duration (p95) by evaluator',
        'Time an evaluator took to reach its outcome, 95th percentile, per evaluator.',
        's',
        [
          query(
            'histogram_quantile(0.95, sum by (le, evaluator) ' +
              `(rate(evalon_evaluation_duration_bucket{${FILTER}}[${RATE}])))`,
            '{{evaluator}}',
          ),
        ],
      ).gridPos({ h: 9, w: 12, x: 12, y: 33 }),
    )

    .withRow(new dashboard.RowBuilder('Judge tokens'))
    .withPanel(
      timeseriesPanel(
        'Judge tokens by evaluator',
        "Tokens used by LLM judges' model calls (gen_ai.client.token.usage), per evaluator and token type.",
        'short',
        [
          query(
            `sum by (evaluator, gen_ai_token_type) (increase(gen_ai_client_token_usage_sum{${FILTER}}[${RATE}]))`,
            '{{evaluator}} {{gen_ai_token_type}}',
          ),
        ],
      ).gridPos({ h: 9, w: 24, x: 0, y: 43 }),
    )

    .withRow(new dashboard.RowBuilder('Collector'))
    .withPanel(
      timeseriesPanel(
        'Ingest rate',
        'Spans received and interactions recorded per second (failed interactions apart).',
        'ops',
        [
          query(`sum(rate(evalon_spans_received_total[${RATE}]))`, 'spans/s'),
          query(
            `sum by (failed) (rate(evalon_interactions_total{agent=~"$agent"}[${RATE}]))`,
            'interactions/s failed={{failed}}',
          ),
        ],
      ).gridPos({ h: 9, w: 12, x: 0, y: 53 }),
    )
    .withPanel(
      timeseriesPanel(
        'Pending interactions and evaluation queue',
        'Traces and spans waiting for their interactions to complete (traces stored past max_pending_traces wait ' +
          'for room); evaluations queued in the ledger and running.',
        'short',
        [
          query('sum(evalon_pending_traces)', 'pending traces'),
          query('sum(evalon_pending_spans)', 'pending spans'),
          query('sum(evalon_waiting_traces)', 'waiting traces'),
          query('sum(evalon_evaluation_queue_size)', 'queued evaluations'),
          query('sum(evalon_evaluation_running)', 'running evaluations'),
        ],
      ).gridPos({ h: 9, w: 12, x: 12, y: 53 }),
    )

    .withRow(new dashboard.RowBuilder('Conversations'))
    .withPanel(
      statPanel(
        'Conversation pass rate',
        'Passing verdicts on whole conversations (bindings with trigger: conversation), among pass and fail ' +
          'verdicts, over the dashboard range.',
        'percentunit',
        query(passRate('sum', '$__range', CONVERSATIONS), 'pass rate'),
      )
        .gridPos({ h: 9, w: 4, x: 0, y: 63 })
        .min(0)
        .max(1),
    )
    .withPanel(
      timeseriesPanel(
        'Conversation pass rate by agent and evaluator',
        'Passing verdicts on whole conversations among pass and fail verdicts, per agent and evaluator.',
        'percentunit',
        [query(passRate('sum by (agent, evaluator)', RATE, CONVERSATIONS), '{{agent}} / {{evaluator}}')],
      )
        .gridPos({ h: 9, w: 10, x: 4, y: 63 })
        .min(0)
        .max(1),
    )
    .withPanel(
      timeseriesPanel(
        'Conversation verdicts by outcome',
        'Outcomes of evaluations of whole conversations (each revision once), per evaluator and outcome.',
        'short',
        [
          query(
            `sum by (evaluator, outcome) (increase(evalon_evaluations_total{${FILTER}${CONVERSATIONS}}[${RATE}]))`,
            '{{evaluator}} {{outcome}}',
          ),
        ],
      )
        .drawStyle(common.GraphDrawStyle.Bars)
        .stacking(new common.StackingConfigBuilder().mode(common.StackingMode.Normal))
        .fillOpacity(80)
        .gridPos({ h: 9, w: 10, x: 14, y: 63 }),
    )

    .withRow(new dashboard.RowBuilder('Agreement'))
    .withPanel(
      timeseriesPanel(
        'Agreement between entries',
        'For each pair of evaluator entries in processors.evaluation.agreement (a judge and human review, two ' +
          "judge versions): raw agreement (rate), Cohen's kappa (1 perfect, 0 chance) and the mean absolute score " +
          'difference (score_mae) over the last window of subjects both judged. Kappa is absent while undefined ' +
          '(both gave every subject one class). A pair with a routed review entry compares a biased sample.',
        'short',
        [query('max by (a, b, statistic) (evalon_evaluation_agreement)', '{{a}} ~ {{b}}: {{statistic}}')],
      ).gridPos({ h: 9, w: 24, x: 0, y: 73 }),
    )
    .build();
}
