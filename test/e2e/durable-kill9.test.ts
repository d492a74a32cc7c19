/**
 * A durable evaluator across a crash: `criteria-judge` (one durable step per criterion) judges
 * three criteria through the scripted model; the collector is killed with SIGKILL while the second
 * criterion's model call is in flight. After the restart the evaluation resumes at that step:
 * the first criterion is not asked again, the second is asked again (the step that was running
 * is the at-least-once unit), and exactly one outcome is recorded.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { EvaluationRecord } from '../../src/evaluation/index.ts';
import {
  createScriptedModel,
  type RecordedRequest,
  type ScriptedModel,
  type ScriptedReply,
} from '../../src/testing/scripted-model.ts';
import { testConfigYaml } from '../helpers/collector.ts';
import { spawnCollector, type CollectorProcess } from '../helpers/collector-process.ts';
import { pollUntil } from '../helpers/poll.ts';

const dir = mkdtempSync(join(tmpdir(), 'evalon-durable-kill9-'));
const processes: CollectorProcess[] = [];
const ENV_KEYS = ['ANTHROPIC_BASE_URL', 'ANTHROPIC_API_KEY', 'EVALON_MODEL'] as const;
const savedEnv = Object.fromEntries(ENV_KEYS.map((key) => [key, process.env[key]]));
let scripted: ScriptedModel;

const CRITERIA = ['alpha', 'bravo', 'charlie'] as const;
/** Which criterion a judge request asks about (each criterion's description names it). */
const criterionOf = (request: RecordedRequest) =>
  CRITERIA.find((name) => String(request.body.messages[0].content).includes(`marker-${name}`));
const verdict = (name: string): ScriptedReply => ({
  toolUse: [{ name: 'record_verdict', input: { passed: true, reasoning: `${name} holds` } }],
  usage: { input_tokens: 100, output_tokens: 10 },
});

beforeAll(async () => {
  scripted = await createScriptedModel();
  let bravoCalls = 0;
  scripted.respondWith((request) => {
    const name = criterionOf(request) ?? 'unknown';
    // The first bravo call hangs well past the kill: the collector dies while it waits.
    if (name === 'bravo' && bravoCalls++ === 0) return { ...verdict(name), delayMs: 30_000 };
    return verdict(name);
  });
  // The collector process inherits the environment: its judge talks to the scripted model.
  process.env.ANTHROPIC_BASE_URL = scripted.baseURL;
  process.env.ANTHROPIC_API_KEY = 'kill9-key';
  process.env.EVALON_MODEL = 'claude-kill9';
});

afterAll(async () => {
  for (const p of processes) p.child.kill('SIGKILL');
  await scripted?.close();
  for (const key of ENV_KEYS) {
    if (savedEnv[key] === undefined) delete process.env[key];
    else process.env[key] = savedEnv[key];
  }
  rmSync(dir, { recursive: true, force: true });
});

function interactionBody(traceId: string, spanId: string): string {
  const now = BigInt(Date.now()) * 1_000_000n;
  const text = (key: string, value: string) => ({ key, value: { stringValue: value } });
  const span = {
    traceId,
    spanId,
    name: 'invoke_agent support-agent',
    kind: 1,
    startTimeUnixNano: String(now),
    endTimeUnixNano: String(now + 2000n),
    attributes: [
      text('gen_ai.operation.name', 'invoke_agent'),
      text('gen_ai.agent.id', 'support-agent'),
      text(
        'gen_ai.input.messages',
        JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: 'Where is my order A-17?' }] }]),
      ),
      text(
        'gen_ai.output.messages',
        JSON.stringify([
          { role: 'assistant', parts: [{ type: 'text', content: 'It has shipped and arrives Friday.' }] },
        ]),
      ),
    ],
  };
  return JSON.stringify({
    resourceSpans: [{ resource: { attributes: [] }, scopeSpans: [{ scope: { name: 't' }, spans: [span] }] }],
  });
}

function readLedger<T>(query: (db: DatabaseSync) => T): T {
  const db = new DatabaseSync(join(dir, 'ledger.db'), { readOnly: true });
  try {
    return query(db);
  } finally {
    db.close();
  }
}

it('resumes a durable evaluation at the step that was running when the collector was killed, without repeating ' +
  'earlier steps', async () => {
  const configFile = join(dir, 'otel-config.yaml');
  writeFileSync(
    configFile,
    testConfigYaml(dir).replace(
      '  evaluation:\n',
      `  evaluation:
    evaluators:
      criteria-judge:
        criteria:
${CRITERIA.map((name) => `          - { name: ${name}, description: "The reply satisfies marker-${name}" }`).join('\n')}
        agents:
          support-agent: { trigger: interaction }
`,
    ),
  );
  const first = await spawnCollector(configFile);
  processes.push(first);
  const traceId = randomBytes(16).toString('hex');
  const spanId = randomBytes(8).toString('hex');
  const interactionId = `${traceId}-${spanId}`;
  const response = await fetch(first.otlpUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: interactionBody(traceId, spanId),
  });
  expect(response.status).toBe(200);
  await response.arrayBuffer();

  // Kill while criterion 2's call is in flight: criterion 1's step has completed and its progress is saved.
  await pollUntil(() => (scripted.requests.some((request) => criterionOf(request) === 'bravo') ? true : undefined), {
    timeoutMs: 30_000,
    what: 'the bravo judge call',
  });
  const saved = readLedger(
    (db) => db.prepare('SELECT progress FROM evaluation_queue').all() as { progress: string | null }[],
  );
  expect(saved).toHaveLength(1);
  expect(JSON.parse(saved[0].progress!)).toMatchObject({ step: 'judge-criterion', input: 1, completedSteps: 2 });
  first.child.kill('SIGKILL');
  await first.exited;
  expect(scripted.requests.map(criterionOf)).toEqual(['alpha', 'bravo']);

  const second = await spawnCollector(configFile);
  processes.push(second);
  const records = await pollUntil(
    async () => {
      const answer = await fetch(`${second.apiUrl}/api/v1/interactions/${interactionId}/evaluations`);
      if (answer.status !== 200) return undefined;
      const { evaluations } = (await answer.json()) as { evaluations: EvaluationRecord[] };
      return evaluations.length > 0 ? evaluations : undefined;
    },
    { timeoutMs: 30_000, what: 'the criteria-judge outcome' },
  );
  second.child.kill('SIGTERM');
  expect(await second.exited).toBe(0);

  expect(records).toHaveLength(1);
  expect(records[0]).toMatchObject({
    evaluatorId: 'criteria-judge',
    attempts: 2,
    outcome: {
      type: 'verdict',
      evaluation: {
        passed: true,
        score: 1,
        explanation: '✓ alpha: alpha holds\n✓ bravo: bravo holds\n✓ charlie: charlie holds',
        // Tokens of the three calls whose answers the evaluation used (the killed call's are lost with it).
        attributes: { criteria_total: 3, 'gen_ai.usage.input_tokens': 300, 'gen_ai.usage.output_tokens': 30 },
      },
    },
  });
  // alpha once (its step completed before the kill), bravo twice (its step was running), charlie once.
  expect(scripted.requests.map(criterionOf)).toEqual(['alpha', 'bravo', 'bravo', 'charlie']);
  const rows = readLedger((db) => ({
    outcomes: (db.prepare('SELECT count(*) AS n FROM evaluations').get() as { n: number }).n,
    queued: (db.prepare('SELECT count(*) AS n FROM evaluation_queue').get() as { n: number }).n,
  }));
  expect(rows).toEqual({ outcomes: 1, queued: 0 });
}, 120_000);
