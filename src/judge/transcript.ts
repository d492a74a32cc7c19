/**
 * The transcript the judge reads (`JudgeTranscriptEntry`): the simulation's transcript, one entry
 * per message, tool call, tool result or event, in order. The collector's `criteria-judge` maps an
 * interaction record (whose own `TranscriptEntry` has another shape) onto it.
 */
import { compactJson, type JsonObject, type JsonValue } from './json-value.ts';

export interface MessageEntry {
  conversation?: string;
  type: 'message';
  sender: string;
  content: string;
  /** Optional JSON describing how the reply was generated. */
  trace?: JsonValue;
}

export interface ToolCallEntry {
  conversation?: string;
  type: 'tool_call';
  tool: string;
  arguments: JsonValue;
}

export interface ToolResultEntry {
  conversation?: string;
  type: 'tool_result';
  tool: string;
  arguments: JsonValue;
  result: JsonValue;
  error?: string;
}

export interface EventEntry {
  conversation?: string;
  type: 'event';
  name: string;
  data: JsonObject;
}

export type JudgeTranscriptEntry = MessageEntry | ToolCallEntry | ToolResultEntry | EventEntry;

/** One line per entry (two for a message with a trace): the transcript as the judge reads it. */
export function renderTranscript(entries: readonly JudgeTranscriptEntry[]): string {
  return entries.map(renderEntry).join('\n');
}

function renderEntry(entry: JudgeTranscriptEntry): string {
  switch (entry.type) {
    case 'message': {
      const conversation = entry.conversation ? ` (${entry.conversation})` : '';
      const line = `[${entry.sender}]${conversation}: ${entry.content}`;
      return entry.trace === undefined ? line : `${line}\n[trace] ${compactJson(entry.trace)}`;
    }
    case 'tool_call':
      return `[tool_call] ${entry.tool}(${compactJson(entry.arguments)})`;
    case 'tool_result':
      return entry.error !== undefined ? `[tool_error] ${entry.error}` : `[tool_result] ${compactJson(entry.result)}`;
    case 'event':
      return `[event] ${entry.name}: ${compactJson(entry.data)}`;
    default:
      return '';
  }
}

/** Names of the tools called in the transcript, in order (with repeats). */
export function toolCallsIn(entries: readonly JudgeTranscriptEntry[]): string[] {
  return entries.filter((entry): entry is ToolCallEntry => entry.type === 'tool_call').map((entry) => entry.tool);
}
