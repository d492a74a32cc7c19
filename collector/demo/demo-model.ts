/**
 * The demo's scripted model plays two parts: the support agent's model (the example's scripted
 * replies) and the LLM judge (a `record_verdict` tool call whose score follows the reply: an
 * answer that names the carrier scores high, a question back or a miss scores low).
 */
import type { RecordedRequest, ScriptedReply } from '../../src/testing/scripted-model.ts';
import { supportReply } from '../../examples/support-agent/scripted-replies.ts';

export function demoModelReply(request: RecordedRequest): ScriptedReply {
  const judging = (request.body.tools as Array<{ name: string }> | undefined)?.some((tool) => tool.name === 'record_verdict');
  if (!judging) return supportReply(request);
  const prompt = JSON.stringify(request.body.messages ?? []);
  const shipped = /has shipped with|was delivered by/.test(prompt);
  const verdict = shipped
    ? { passed: true, score: 0.9, label: 'helpful', explanation: 'Answers where the order is, with the carrier and the date.' }
    : { passed: false, score: 0.3, label: 'unhelpful', explanation: 'Does not tell the customer where the order is.' };
  return { toolUse: [{ name: 'record_verdict', input: verdict }], usage: { input_tokens: 350 + prompt.length / 8, output_tokens: 60 } };
}
