/**
 * The two example remote agents (TypeScript and Python) pass the protocol test: a scenario runs
 * against each, through a 503-then-success retry.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runScenario } from '../../../../src/simulation/run/run-scenario.ts';
import { lastUserText, startModel, type ModelFixture } from '../../../helpers/model-fixture.ts';
import { chatScenario } from '../helpers/scenario-fixtures.ts';

async function startServer(command: string, args: string[]): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(command, [...args, '--port', '0', '--fail-first', '1'], { stdio: ['ignore', 'pipe', 'pipe'] });
  const url = await new Promise<string>((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => reject(new Error(`${command} did not start: ${output}`)), 10_000);
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on (http:\/\/\S+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('exit', (code) => reject(new Error(`${command} exited with ${code}: ${output}`)));
  });
  return { url, child };
}

describe.each([
  ['TypeScript', process.execPath, ['examples/remote_agent_ts/server.ts']],
  ['Python', 'python3', ['examples/remote_agent_python/server.py']],
])('%s example remote agent', (_language, command, args) => {
  let server: { url: string; child: ChildProcess };
  let model: ModelFixture;
  beforeAll(async () => {
    server = await startServer(command, args);
    model = await startModel();
  });
  afterAll(async () => {
    server?.child.kill();
    await model?.close();
  });

  it('runs a scenario through a 503-then-success retry', async () => {
    model.route({
      participant: (request) =>
        lastUserText(request).includes('Echo from remote agent: Where is my order?')
          ? 'Thanks! [END]'
          : 'Where is my order?',
    });
    // Each server answers its first step with 503 (--fail-first 1): the run only gets an agent
    // message because the 503 was retried.
    const result = await runScenario(chatScenario('remote'), {
      model: model.client,
      agentEndpoint: server.url,
      remote: { backoffBaseMs: 5 },
      thinkingDelays: false,
      simulationTimeoutMs: 15_000,
    });
    expect(result.transcript).toContainEqual({
      conversation: 'chat',
      type: 'message',
      sender: 'agent',
      content: 'Echo from remote agent: Where is my order?',
      trace: { handler: 'echo', history_items: 1, events: 0 },
    });
    expect(result.endReason).toMatchObject({ type: 'end', participant: 'end_user' });
    expect(result.passed).toBe(true);
  });
});
