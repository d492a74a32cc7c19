/**
 * The demo's scripted model plays three parts: the support agent's model (the example's scripted
 * replies), the LLM judge (a `record_verdict` tool call whose score follows the reply: an answer
 * that names the carrier scores high, a question back or a miss scores low) and the criteria
 * judge (one binary verdict per criterion, by the same rule).
 *
 * On one question the LLM judge answers prose instead of a verdict, as a model sometimes does:
 * asked again, it does it again, so that evaluation is recorded as an error, and the demo shows
 * every outcome.
 */
import type { RecordedRequest, ScriptedReply } from '../../src/testing/scripted-model.ts';
import { supportReply } from '../../examples/support-agent/scripted-replies.ts';

/** The question whose LLM-judge verdict comes back unreadable. */
export const GARBLED_VERDICT_QUESTION = 'Where is order C-404?';

export function demoModelReply(request: RecordedRequest): ScriptedReply {
  const judging = (request.body.tools as Array<{ name: string }> | undefined)?.some(
    (tool) => tool.name === 'record_verdict',
  );
  if (!judging) return supportReply(request);
  const prompt = JSON.stringify(request.body.messages ?? []);
  const shipped = /has shipped with|was delivered by/.test(prompt);
  if (String(request.body.system ?? '').includes('ONE evaluation criterion')) {
    // criteria-judge asks about one criterion a call.
    const lookup = prompt.includes('looked the order up');
    const passed = lookup ? prompt.includes('get_order') : shipped;
    const reasoning = lookup
      ? passed
        ? 'get_order was called before the answer.'
        : 'No lookup before the answer.'
      : passed
        ? 'The reply names the carrier and the delivery date.'
        : 'The reply does not say where the order is.';
    return {
      toolUse: [{ name: 'record_verdict', input: { passed, reasoning } }],
      usage: { input_tokens: 300 + prompt.length / 8, output_tokens: 40 },
    };
  }
  if (prompt.includes(GARBLED_VERDICT_QUESTION))
    return {
      text: 'Hard to say. The agent tried its best, I suppose.',
      usage: { input_tokens: 350, output_tokens: 12 },
    };
  const verdict = shipped
    ? {
        passed: true,
        score: 0.9,
        label: 'helpful',
        explanation: 'Answers where the order is, with the carrier and the date.',
      }
    : { passed: false, score: 0.3, label: 'unhelpful', explanation: 'Does not tell the customer where the order is.' };
  return {
    toolUse: [{ name: 'record_verdict', input: verdict }],
    usage: { input_tokens: 350 + prompt.length / 8, output_tokens: 60 },
  };
}
