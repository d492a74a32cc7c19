/**
 * Replies of the scripted model (`src/testing/scripted-model.ts`) that make the support agent
 * behave as a real model would: ask for both tools when a question names an order, then answer
 * from what the tools returned. Used by `main.ts --scripted` and the tests.
 *
 * The SDK's tool runner uses message threads (the server keeps the history), so a request carries
 * only the new messages: the tool results are matched to their tool by the call id, which names it.
 */
import { randomUUID } from 'node:crypto';
import type { RecordedRequest, ScriptedReply } from '../../src/testing/scripted-model.ts';

type Block = { type: string; text?: string; id?: string; name?: string; tool_use_id?: string; content?: unknown };
type Message = { role: string; content: string | Block[] };

export function supportReply(request: RecordedRequest): ScriptedReply {
  const messages = (request.body.messages ?? []) as Message[];
  const last = messages.at(-1);
  const results = Array.isArray(last?.content) ? last.content.filter((block) => block.type === 'tool_result') : [];
  if (results.length === 0) {
    const orderId = /\b([A-Z]-\d+)\b/i.exec(textOf(last))?.[1]?.toUpperCase();
    if (!orderId) return { text: 'Could you tell me your order number? It looks like A-17.' };
    return {
      text: `Let me look order ${orderId} up.`,
      toolUse: ['get_order', 'get_shipping'].map((name) => ({
        name,
        input: { orderId },
        id: `toolu_${name}_${randomUUID().slice(0, 8)}`,
      })),
    };
  }
  const byName = resultsByToolName(results);
  const order = byName.get_order as { orderId?: string; status?: string; error?: string } | undefined;
  const shipping = byName.get_shipping as { carrier?: string; eta?: string; error?: string } | undefined;
  if (!order || order.error)
    return { text: `I could not find order ${order?.orderId ?? 'you named'}; could you check the number?` };
  if (!shipping || shipping.error)
    return { text: `Order ${order.orderId} is ${order.status}; it has not shipped yet.` };
  if (order.status === 'delivered')
    return { text: `Order ${order.orderId} was delivered by ${shipping.carrier} ${shipping.eta}.` };
  return { text: `Order ${order.orderId} has shipped with ${shipping.carrier} and should arrive ${shipping.eta}.` };
}

function textOf(message: Message | undefined): string {
  if (!message) return '';
  if (typeof message.content === 'string') return message.content;
  return message.content.map((block) => block.text ?? '').join(' ');
}

/** The parsed tool results, by the name of the tool, which the call id carries. */
function resultsByToolName(results: Block[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const result of results) {
    const name = /^toolu_(get_order|get_shipping)_/.exec(result.tool_use_id ?? '')?.[1];
    if (name) out[name] = parseResult(result.content);
  }
  return out;
}

function parseResult(content: unknown): unknown {
  const text =
    typeof content === 'string'
      ? content
      : Array.isArray(content)
        ? content.map((block: Block) => block.text ?? '').join('')
        : '';
  try {
    return JSON.parse(text);
  } catch {
    return { error: text };
  }
}
