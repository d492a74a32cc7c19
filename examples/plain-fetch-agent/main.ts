/**
 * The plain-fetch activity agent, runnable with one command:
 *
 *   node examples/plain-fetch-agent/main.ts --scripted                   # a local scripted model
 *   ANTHROPIC_API_KEY=… node examples/plain-fetch-agent/main.ts "What can I do this weekend in Lisbon?"
 *
 * Options: --conversation <id> (default: a new one), --model <name> (default: EVALON_MODEL, else
 * claude-sonnet-4-6). Spans go to OTEL_EXPORTER_OTLP_ENDPOINT (default http://localhost:4318).
 */
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { register } from '../../src/instrumentation/index.ts';
import { createScriptedModel, type ScriptedModel } from '../../src/testing/scripted-model.ts';
import { createActivityAgent, finalText } from './activity-agent.ts';
import { activityReply } from './scripted-replies.ts';

const { values, positionals } = parseArgs({
  options: {
    scripted: { type: 'boolean', default: false },
    conversation: { type: 'string' },
    model: { type: 'string' },
  },
  allowPositionals: true,
});

const apiKey = process.env.ANTHROPIC_API_KEY;
if (!values.scripted && !apiKey) {
  console.error(
    'Set ANTHROPIC_API_KEY to use the Anthropic API, or run with --scripted to use a local scripted model.',
  );
  process.exit(2);
}

const telemetry = register({
  serviceName: process.env.OTEL_SERVICE_NAME ?? 'activity-service',
  captureContent: true,
  shutdownTimeoutMillis: 2000,
});

let scripted: ScriptedModel | undefined;
try {
  if (values.scripted) scripted = (await createScriptedModel()).respondWith(activityReply);
  const agent = createActivityAgent({
    baseURL: scripted?.baseURL ?? process.env.ANTHROPIC_BASE_URL ?? 'https://api.anthropic.com',
    apiKey: scripted ? 'scripted' : apiKey!,
    model: values.model ?? process.env.EVALON_MODEL ?? 'claude-sonnet-4-6',
  });
  const question = positionals.join(' ') || 'What can I do this weekend in Lisbon?';
  const conversationId = values.conversation ?? randomUUID();
  const { result, interactionId } = await agent.ask(question, { conversationId });
  console.log(`question: ${question}`);
  console.log(`answer: ${finalText(result)}`);
  console.log(`conversation: ${conversationId}`);
  console.log(`interaction: ${interactionId ?? '(not traced)'}`);
} catch (error) {
  console.error(`activity agent failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
} finally {
  await scripted?.close();
  await telemetry.shutdown();
}
// A CLI is done here (export retries to a collector that is down would keep it alive longer).
process.exit();
