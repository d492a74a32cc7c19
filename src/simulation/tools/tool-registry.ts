/**
 * The built-in tools (all 26, whatever the scenario: each reads its own context keys and answers
 * "not found" when they are missing) and how a call is executed against a context.
 */
import type { JsonObject, JsonValue } from '../../judge/json-value.ts';
import type { ToolInteraction } from '../agent/agent.ts';
import { customerSupportTools } from './customer-support-tools.ts';
import { flightTools } from './flight-tools.ts';
import { hotelTools } from './hotel-tools.ts';
import { orderRefundTools } from './order-refund-tools.ts';
import { paymentTools } from './payment-tools.ts';
import type { Tool } from './tool.ts';

export function builtInTools(): Tool[] {
  return [...flightTools, ...hotelTools, ...paymentTools, ...orderRefundTools, ...customerSupportTools];
}

/**
 * Runs one tool call; an unknown tool or a thrown error becomes the interaction's error. The result
 * is a snapshot: tools may return parts of the context, which later calls can change.
 */
export async function executeTool(
  tools: readonly Tool[],
  name: string,
  args: JsonObject,
  context: JsonObject,
): Promise<ToolInteraction> {
  const call = { toolName: name, arguments: args };
  const tool = tools.find((candidate) => candidate.name === name);
  if (!tool)
    return { call, result: { toolName: name, arguments: args, result: null, error: `Tool '${name}' not found` } };
  try {
    // Snapshot a synchronous result before yielding: tools of one round run concurrently.
    const raw = tool.run(args, context);
    const result = raw instanceof Promise ? snapshot(await raw) : snapshot(raw);
    return { call, result: { toolName: name, arguments: args, result } };
  } catch (error) {
    return {
      call,
      result: {
        toolName: name,
        arguments: args,
        result: null,
        error: error instanceof Error ? error.message : String(error),
      },
    };
  }
}

function snapshot(value: JsonValue | undefined): JsonValue {
  return value === undefined ? null : structuredClone(value);
}
