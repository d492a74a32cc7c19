/**
 * Every PromQL expression of the committed dashboards, run by a real Prometheus that scrapes the
 * collector's metrics endpoint while demo traffic flows (`evalon demo`: the instrumented support
 * agent, every evaluation outcome, an LLM judge's tokens), returns data, and the same Prometheus
 * evaluates the shipped alerting rules (dashboards/alerts) without an error. Needs the
 * `prometheus` binary (Debian's `prometheus` package; or EVALON_PROMETHEUS_BIN); without it the
 * test is skipped, unless EVALON_REQUIRE_PROMETHEUS=1 (CI), where that is a failure.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemo, type Demo } from '../../collector/demo/demo.ts';
import { pollUntil } from '../helpers/poll.ts';
import { committedDashboards, expand, labelValuesQuery, panelQueries } from './dashboard-queries.ts';

/** The shipped alerting rules (docs/alerts.md), loaded as `rule_files`. */
const ALERT_RULES = fileURLToPath(new URL('../../dashboards/alerts/*.yaml', import.meta.url));

function findPrometheus(): string | undefined {
  if (process.env.EVALON_PROMETHEUS_BIN) return process.env.EVALON_PROMETHEUS_BIN;
  for (const dir of (process.env.PATH ?? '').split(delimiter))
    if (dir && existsSync(join(dir, 'prometheus'))) return join(dir, 'prometheus');
  return undefined;
}

const binary = findPrometheus();
const required = process.env.EVALON_REQUIRE_PROMETHEUS === '1';

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe.runIf(binary !== undefined || required)('the dashboard queries in a real Prometheus', () => {
  let demo: Demo | undefined;
  let traffic: Promise<void> | undefined;
  let stopTraffic = false;
  let prometheus: ChildProcess | undefined;
  let dir: string;
  let api: string;
  let output = '';

  async function promQuery(expr: string): Promise<Array<{ metric: Record<string, string>; value: [number, string] }>> {
    const response = await fetch(`${api}/api/v1/query?query=${encodeURIComponent(expr)}`);
    const body = (await response.json()) as {
      status: string;
      error?: string;
      data?: { result: Array<{ metric: Record<string, string>; value: [number, string] }> };
    };
    if (body.status !== 'success') throw new Error(`${expr}: ${body.error}`);
    return body.data!.result;
  }

  beforeAll(async () => {
    if (!binary)
      throw new Error(
        'EVALON_REQUIRE_PROMETHEUS=1 but no prometheus binary on PATH (apt-get install prometheus, or set ' +
          'EVALON_PROMETHEUS_BIN)',
      );
    // Demo traffic, round after round, until the test is done.
    demo = await startDemo({ otlp: 0, api: 0, prometheus: 0 });
    traffic = (async () => {
      for (let round = 0; !stopTraffic; round++) {
        await demo!.askRound(round);
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    })();

    dir = mkdtempSync(join(tmpdir(), 'evalon-prometheus-'));
    const target = demo.collector.prometheusAddress!;
    writeFileSync(
      join(dir, 'prometheus.yml'),
      `global: { scrape_interval: 1s, evaluation_interval: 1s }\nrule_files: ` +
        `[${JSON.stringify(ALERT_RULES)}]\nscrape_configs:\n  - job_name: evalon\n    static_configs: [{ ` +
        `targets: ['${target.host}:${target.port}'] }]\n`,
    );
    const port = await freePort();
    api = `http://127.0.0.1:${port}`;
    prometheus = spawn(
      binary,
      [
        `--config.file=${join(dir, 'prometheus.yml')}`,
        `--storage.tsdb.path=${join(dir, 'data')}`,
        `--web.listen-address=127.0.0.1:${port}`,
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    prometheus.stdout!.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-4000)));
    prometheus.stderr!.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-4000)));
    // Enough scrapes for rate() over the test window: a handful, each a second apart.
    await pollUntil(
      async () => {
        const scrapes = await promQuery('count_over_time(evalon_evaluations_total{outcome="pass"}[1m])');
        return scrapes.length > 0 && Number(scrapes[0].value[1]) >= 6 ? true : undefined;
      },
      { timeoutMs: 40_000, intervalMs: 250, what: 'six scrapes of the collector by Prometheus' },
    ).catch((error: unknown) => {
      throw new Error(`${String(error)}\nprometheus said:\n${output}`);
    });
  }, 60_000);

  afterAll(async () => {
    stopTraffic = true;
    await traffic;
    if (prometheus && prometheus.exitCode === null) {
      const exited = new Promise((resolve) => prometheus!.once('exit', resolve));
      prometheus.kill('SIGTERM');
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5_000))]);
      if (prometheus.exitCode === null) prometheus.kill('SIGKILL');
    }
    await demo?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('answers every panel query of the committed dashboards with data', async () => {
    const queries = panelQueries();
    expect(queries.length).toBeGreaterThan(10);
    const empty: string[] = [];
    for (const query of queries) {
      const result = await promQuery(expand(query.expr, { rate: '30s', range: '5m' }));
      const values = result.map((series) => Number(series.value[1])).filter((value) => Number.isFinite(value));
      if (values.length === 0) empty.push(`${query.file} "${query.panel}" ${query.refId}: ${query.expr}`);
    }
    expect(empty, 'queries without data').toEqual([]);
  });

  it('evaluates the alerting rules on the metrics of the collector without errors', async () => {
    type Rule = { name: string; type: string; health: string; lastError?: string };
    const rules = await pollUntil(
      async () => {
        const response = await fetch(`${api}/api/v1/rules`);
        const body = (await response.json()) as { data: { groups: Array<{ name: string; rules: Rule[] }> } };
        const all = body.data.groups.flatMap((group) => group.rules.map((rule) => ({ ...rule, group: group.name })));
        return all.length > 0 && all.every((rule) => rule.health !== 'unknown') ? all : undefined;
      },
      { timeoutMs: 10_000, intervalMs: 250, what: 'an evaluation of every alerting rule' },
    );
    expect(rules.filter((rule) => rule.type === 'alerting').length).toBeGreaterThan(5);
    const broken = rules.filter((rule) => rule.health !== 'ok').map((rule) => `${rule.name}: ${rule.lastError}`);
    expect(broken, 'rules that failed to evaluate').toEqual([]);
    // The pass-rate series are recorded from the demo's verdicts, with the default threshold.
    expect((await promQuery('evalon:pass_rate:ratio30m')).length).toBeGreaterThan(0);
    const thresholds = await promQuery('evalon:pass_rate_threshold:effective');
    expect(thresholds.length).toBeGreaterThan(0);
    for (const series of thresholds) expect(Number(series.value[1])).toBe(0.8);
  });

  it('fills every variable of the committed dashboards', async () => {
    for (const { dashboard } of committedDashboards()) {
      for (const variable of dashboard.templating.list.filter((entry) => entry.type === 'query')) {
        const query = labelValuesQuery(variable.query)!;
        const match = expand(`${query.metric}${query.selector}`);
        const response = await fetch(`${api}/api/v1/label/${query.label}/values?match[]=${encodeURIComponent(match)}`);
        const body = (await response.json()) as { data: string[] };
        expect(body.data.length, variable.name).toBeGreaterThan(0);
      }
    }
  });
});
