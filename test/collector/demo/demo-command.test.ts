/**
 * `evalon demo` runs the whole loop offline: a collector with evaluators, the instrumented example
 * agent against a scripted model, and verdicts printed as they are recorded.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TEST_NODE_FLAGS } from '../../helpers/test-node-flags.ts';
import { expect, it } from 'vitest';
import { runValidateCommand } from '../../../collector/cli/validate-command.ts';
import { runDemoCommand } from '../../../collector/demo/demo-command.ts';
import { demoConfigYaml } from '../../../collector/demo/demo-config.ts';
import { GARBLED_VERDICT_QUESTION } from '../../../collector/demo/demo-model.ts';

it('records interactions, evaluates them and prints passing ' +
  'and failing verdicts, the failed interaction included', async () => {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runDemoCommand(['--ephemeral', '--rounds', '1'], {
    out: (line) => out.push(line),
    err: (line) => err.push(line),
  });
  const text = out.join('\n');
  expect(err).toEqual([]);
  expect(code).toBe(0);
  expect(text).toMatch(/✓ reply-length\s+pass/);
  expect(text).toMatch(/✗ tool-call-required\s+fail\s+Has my parcel shipped yet\?/);
  // The question whose model call failed is still an interaction, evaluated (trigger-on-failure).
  expect(text).toMatch(/reply-length\s+fail\s+\[failed\] My order A-17 has not arrived/);
  expect(text).toMatch(/✓ regex\s+pass/);
  expect(text).toMatch(/✗ regex\s+fail/);
  // The error outcome: the scripted judge garbles its verdict on one question, twice.
  expect(text).toMatch(
    new RegExp(`! llm-judge\\s+error\\s+${GARBLED_VERDICT_QUESTION.replace('?', '\\?')}\\s+.*unreadable`),
  );
  expect(text).not.toMatch(/misconfigured|is not set/);
  // The round is one conversation, ended after its third question and again after its last: two revisions.
  expect(text).toMatch(
    /✓ repeated-question-evaluator\s+pass\s+\[conversation demo-0\]\s+asked for it 2 times in 3 turns/,
  );
  expect(text).toMatch(
    /✗ repeated-question-evaluator\s+fail\s+\[conversation demo-0\]\s+asked for it 4 times in 6 turns/,
  );
  expect(text).toMatch(/\d+ evaluations: [1-9]\d* pass, [1-9]\d* fail, [1-9]\d* inconclusive, [1-9]\d* error/);
  expect(text).toMatch(/metrics:\s+http:\/\/127\.0\.0\.1:\d+\/metrics/);
  // The demo's reviewer answers the human reviews through the API; the judge's agreement with it shows.
  expect(text).toMatch(/✓ human-review\/audit\s+pass/);
  expect(text).toMatch(/agreement llm-judge ~ human-review\/audit: [1-9]\d* subjects, rate \d\.\d\d, kappa /);
}, 60_000);

it('runs a configuration that evalon validate accepts, evaluator properties included', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'evalon-demo-config-'));
  const file = join(dir, 'demo-config.yaml');
  writeFileSync(file, demoConfigYaml(dir, { otlp: 0, api: 0, prometheus: 0 }));
  const out: string[] = [];
  const err: string[] = [];
  const code = await runValidateCommand({ configFiles: [file] }, { out: (l) => out.push(l), err: (l) => err.push(l) });
  rmSync(dir, { recursive: true, force: true });
  expect({ code, err }).toEqual({ code: 0, err: [] });
  // Seven evaluators of interactions and one of conversations (repeated-question-evaluator), and
  // human-review/audit.
  expect(out).toEqual([`OK: ${file} (9 evaluators, 9 bindings, 1 module loaded)`]);
});

it('refuses a bad --rounds with a clear message', async () => {
  await expect(runDemoCommand(['--rounds', 'x'], { out: () => {}, err: () => {} })).rejects.toThrow(
    'evalon demo: --rounds must be a positive integer (got x)',
  );
});

it('stops cleanly on Ctrl-C while it keeps running', async () => {
  const { spawn } = await import('node:child_process');
  const main = new URL('../../../collector/cli/main.ts', import.meta.url).pathname;
  const child = spawn(
    process.execPath,
    [...TEST_NODE_FLAGS, main, 'demo', '--ephemeral', '--rounds', '1', '--keep-running'],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const deadline = Date.now() + 50_000;
  while (!out.includes('Ctrl-C stops it') && Date.now() < deadline)
    await new Promise((resolve) => setTimeout(resolve, 100));
  expect(out).toContain('Ctrl-C stops it');
  child.kill('SIGINT');
  expect(await exited).toBe(0);
  expect(out).not.toMatch(/Error|at .*\.ts:\d+/);
}, 60_000);
