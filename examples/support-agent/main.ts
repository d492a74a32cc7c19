/**
 * The support agent, runnable with one command:
 *
 *   node examples/support-agent/main.ts --scripted                       # a local scripted model
 *   ANTHROPIC_API_KEY=… node examples/support-agent/main.ts "Where is my order A-17?"
 *
 * Options: --conversation <id> (default: a new one), --model <name> (default: EVALON_MODEL, else
 * claude-sonnet-4-6). Spans go to OTEL_EXPORTER_OTLP_ENDPOINT (default http://localhost:4318),
 * where `npm start` runs the collector. Prints the answer and the interaction id.
 */
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import Anthropic from '@anthropic-ai/sdk';
import { register } from '../../src/instrumentation/index.ts';
import { createScriptedModel, type ScriptedModel } from '../../src/testing/scripted-model.ts';
import { supportReply } from './scripted-replies.ts';
import { createSupportAgent } from './support-agent.ts';

const { values, positionals } = parseArgs({
  options: {
    scripted: { type: 'boolean', default: false },
    conversation: { type: 'string' },
    model: { type: 'string' },
  },
  allowPositionals: true,
});

if (!values.scripted && !process.env.ANTHROPIC_API_KEY) {
  console.error(
    'Set ANTHROPIC_API_KEY to use the Anthropic API, or run with --scripted to use a local scripted model.',
  );
  process.exit(2);
}

// Before any Anthropic client exists: the client reads its tracing settings when it is constructed.
// Content capture is on for the demo: the collector then records the question, the tool arguments
// and results, and the answer. A CLI waits at most 2 s for the last export when it ends.
const telemetry = register({
  serviceName: process.env.OTEL_SERVICE_NAME ?? 'support-service',
  captureContent: true,
  shutdownTimeoutMillis: 2000,
});

let scripted: ScriptedModel | undefined;
try {
  if (values.scripted) scripted = (await createScriptedModel()).respondWith(supportReply);
  const client = scripted
    ? new Anthropic({ apiKey: 'scripted', baseURL: scripted.baseURL, maxRetries: 0 })
    : new Anthropic();
  const agent = createSupportAgent({ client, model: values.model ?? process.env.EVALON_MODEL ?? 'claude-sonnet-4-6' });

  const question = positionals.join(' ') || 'Where is my order A-17?';
  const conversationId = values.conversation ?? randomUUID();
  const { result, interactionId } = await agent.ask(question, { conversationId });
  console.log(`question: ${question}`);
  console.log(`answer: ${result}`);
  console.log(`conversation: ${conversationId}`);
  console.log(`interaction: ${interactionId ?? '(not traced)'}`);
} catch (error) {
  console.error(`support agent failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
} finally {
  await scripted?.close();
  await telemetry.shutdown();
}
// A CLI is done here. (With the collector down, the exporter's retries would otherwise keep the
// process alive until OTEL_EXPORTER_OTLP_TIMEOUT; the answer is printed either way.)
process.exit();
