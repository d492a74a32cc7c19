/**
 * The agent contract: what the evaluated participant is, whatever runs it (in-process Claude,
 * code, a remote server). Agents are stateless: the harness owns the history, including the
 * agent's own past turns and tool work, and hands all of it to every step.
 */
import type { JsonObject, JsonValue } from '../../judge/json-value.ts';

export interface SimulationMessage {
  sender: string;
  content: string;
  /** Optional JSON describing how the reply was generated. */
  trace?: JsonValue;
}

export interface SimulationToolCall {
  toolName: string;
  arguments: JsonObject;
}

export interface ToolResult {
  toolName: string;
  arguments: JsonObject;
  result: JsonValue;
  /** Set when the call failed (unknown tool, thrown error); `result` is then null. */
  error?: string;
}

export interface ToolInteraction {
  call: SimulationToolCall;
  result: ToolResult;
}

export interface SimulationEvent {
  name: string;
  data: JsonObject;
}

export interface SendAction {
  type: 'send';
  /** Empty content is silence: not recorded, not delivered, not counted. */
  message: SimulationMessage;
  /** Tool calls this step ran, with their results, in order. */
  toolInteractions: ToolInteraction[];
  /** End the simulation right after this message (a code agent's `endAfter`). */
  endAfter?: boolean;
}

export interface EndAction {
  type: 'end';
}

export type Action = SendAction | EndAction;

export interface TurnEntry {
  type: 'turn';
  conversation: string;
  sender: string;
  content: string;
  trace?: JsonValue;
}

export interface ToolUseEntry {
  type: 'tool_use';
  conversation: string;
  interaction: ToolInteraction;
}

export type HistoryEntry = TurnEntry | ToolUseEntry;

export interface Agent {
  /**
   * Produces the next action, answering in `respondIn`. `events` are the non-conversation events
   * received since the last step (observed conversation messages are already turns in `history`).
   */
  step(history: readonly HistoryEntry[], events: readonly SimulationEvent[], respondIn: string): Promise<Action>;
  /**
   * True when a step's action depends only on its inputs and has no local side effects (a remote
   * agent): a recorded run then replays the action itself instead of calling the agent.
   */
  readonly replayable?: boolean;
}

export function sendAction(
  sender: string,
  content: string,
  toolInteractions: ToolInteraction[] = [],
  trace?: JsonValue,
): SendAction {
  return {
    type: 'send',
    message: trace === undefined ? { sender, content } : { sender, content, trace },
    toolInteractions,
  };
}

export const END_ACTION: EndAction = Object.freeze({ type: 'end' }) as EndAction;
