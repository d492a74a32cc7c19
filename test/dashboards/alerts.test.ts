/**
 * The Prometheus alerting rules in dashboards/alerts (docs/alerts.md): each alert is complete (for,
 * severity, summary, a description that links the docs), documented, and fires in at least one
 * promtool unit test case; `promtool check rules` accepts every rule file, `promtool test rules`
 * passes every test in dashboards/alerts/tests, and `promtool check config` accepts the shipped
 * dashboards/prometheus.yml with its rule_files. Needs `promtool` (Debian's `prometheus` package;
 * or EVALON_PROMTOOL_BIN); without it those runs are skipped with the reason, unless
 * EVALON_REQUIRE_PROMETHEUS=1 (CI), where that is a failure.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { delimiter, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it, type TestContext } from 'vitest';
import { parse } from 'yaml';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const ALERTS_DIR = join(REPO, 'dashboards/alerts');

interface Rule {
  alert?: string;
  record?: string;
  expr: string;
  for?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}
interface RuleFile {
  groups: Array<{ name: string; rules: Rule[] }>;
}
interface TestFile {
  rule_files: string[];
  tests: Array<{
    name?: string;
    alert_rule_test?: Array<{ eval_time: string; alertname: string; exp_alerts?: unknown[] }>;
  }>;
}

const yamlFiles = (dir: string) =>
  readdirSync(dir)
    .filter((file) => file.endsWith('.yaml'))
    .sort()
    .map((file) => join(dir, file));

/** The rules Prometheus loads with `rule_files: [dashboards/alerts/*.yaml]`. */
const ruleFiles = yamlFiles(ALERTS_DIR);
/** Rule files shipped as examples to copy (pass-rate thresholds). */
const exampleFiles = yamlFiles(join(ALERTS_DIR, 'examples'));
const testFiles = yamlFiles(join(ALERTS_DIR, 'tests'));
const rel = (file: string) => relative(REPO, file);

const alerts = ruleFiles.flatMap((file) =>
  (parse(readFileSync(file, 'utf8')) as RuleFile).groups.flatMap((group) =>
    group.rules.filter((rule) => rule.alert).map((rule) => ({ file: rel(file), group: group.name, rule })),
  ),
);

function findPromtool(): string | undefined {
  if (process.env.EVALON_PROMTOOL_BIN) return process.env.EVALON_PROMTOOL_BIN;
  for (const dir of (process.env.PATH ?? '').split(delimiter))
    if (dir && existsSync(join(dir, 'promtool'))) return join(dir, 'promtool');
  return undefined;
}

const promtool = findPromtool();
const required = process.env.EVALON_REQUIRE_PROMETHEUS === '1';

describe('the alerting rules', () => {
  it('are in groups named evalon…, each alert with for, a severity, a summary and a description', () => {
    expect(ruleFiles.length).toBeGreaterThan(0);
    expect(alerts.length).toBeGreaterThan(0);
    for (const file of [...ruleFiles, ...exampleFiles])
      for (const group of (parse(readFileSync(file, 'utf8')) as RuleFile).groups)
        expect(group.name, rel(file)).toMatch(/^evalon/);
    for (const { file, rule } of alerts) {
      const where = `${file} ${rule.alert}`;
      expect(rule.alert, where).toMatch(/^Evalon[A-Z]\w+$/);
      expect(rule.for, `${where}: for`).toMatch(/^\d+[smh]$/);
      expect(['critical', 'warning', 'info'], `${where}: labels.severity`).toContain(rule.labels?.severity);
      expect(rule.annotations?.summary, `${where}: annotations.summary`).toBeTruthy();
      expect(rule.annotations?.description, `${where}: annotations.description`).toContain(
        `docs/alerts.md#${rule.alert!.toLowerCase()}`,
      );
    }
    const names = alerts.map(({ rule }) => rule.alert);
    expect(new Set(names).size, 'alert names are unique').toBe(names.length);
  });

  it('each fire in at least one promtool test case (a new alert needs a test in dashboards/alerts/tests)', () => {
    const firing = new Set<string>();
    for (const file of testFiles) {
      const tests = parse(readFileSync(file, 'utf8')) as TestFile;
      for (const group of tests.tests)
        for (const check of group.alert_rule_test ?? [])
          if ((check.exp_alerts ?? []).length > 0) firing.add(check.alertname);
    }
    const untested = alerts.map(({ rule }) => rule.alert!).filter((name) => !firing.has(name));
    expect(untested, 'alerts without a test case where they fire').toEqual([]);
  });

  it('are each documented in docs/alerts.md', () => {
    const docs = readFileSync(join(REPO, 'docs/alerts.md'), 'utf8');
    const headings = new Set([...docs.matchAll(/^#+\s+`?(\w+)`?\s*$/gm)].map((match) => match[1]));
    const undocumented = alerts.map(({ rule }) => rule.alert!).filter((name) => !headings.has(name));
    expect(undocumented, 'alerts without a heading in docs/alerts.md').toEqual([]);
  });

  it('are loaded by the shipped dashboards/prometheus.yml', () => {
    const config = parse(readFileSync(join(REPO, 'dashboards/prometheus.yml'), 'utf8')) as { rule_files?: string[] };
    expect(config.rule_files).toContain('alerts/*.yaml');
  });
});

const MISSING = 'no promtool on PATH (apt-get install prometheus, or set EVALON_PROMTOOL_BIN)';

describe('the alerting rules in promtool', () => {
  /** Skips the test, with the reason, when promtool is missing (a failure under EVALON_REQUIRE_PROMETHEUS=1). */
  function needPromtool(ctx: TestContext): void {
    if (!promtool) ctx.skip(MISSING);
  }

  function run(args: string[]): { ok: boolean; output: string } {
    const result = spawnSync(promtool!, args, { cwd: REPO, encoding: 'utf8', timeout: 60_000 });
    const output =
      `$ promtool ` +
      `${args.join(' ')}\n${result.stdout ?? ''}${result.stderr ?? ''}${result.error ? String(result.error) : ''}`;
    return { ok: result.status === 0, output };
  }

  beforeAll(() => {
    if (!promtool && required) throw new Error(`EVALON_REQUIRE_PROMETHEUS=1 but ${MISSING}`);
  });

  it('accept every rule file (promtool check rules)', (ctx) => {
    needPromtool(ctx);
    const { ok, output } = run(['check', 'rules', ...[...ruleFiles, ...exampleFiles].map(rel)]);
    expect(ok, output).toBe(true);
  });

  it('pass their unit tests (promtool test rules)', (ctx) => {
    needPromtool(ctx);
    expect(testFiles.length).toBeGreaterThan(0);
    const { ok, output } = run(['test', 'rules', ...testFiles.map(rel)]);
    expect(ok, output).toBe(true);
    // One SUCCESS per test file: promtool read them all.
    expect(output.match(/SUCCESS/g)?.length, output).toBe(testFiles.length);
  });

  it('accept the shipped Prometheus configuration and the rule files it loads (promtool check config)', (ctx) => {
    needPromtool(ctx);
    const { ok, output } = run(['check', 'config', 'dashboards/prometheus.yml']);
    expect(ok, output).toBe(true);
    for (const file of ruleFiles) expect(output, output).toContain(rel(file));
  });
});
