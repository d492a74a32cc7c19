/**
 * The transcript and the tool calls of one interaction, in time order:
 * - the input messages, at the invocation's start;
 * - every model call's output messages, at the call's end (a message made only of tool calls is
 *   not repeated as a message: its calls are `tool_call` entries);
 * - without model-call output, the agent span's own output, in the order it states: its messages
 *   and calls come before the span's end and never before a later step (see `keepStatedOrder`);
 * - one `tool_call` entry per tool call, from the tool spans (at their start, but never before the
 *   model call that asked for them) and from `tool_call` parts that no tool span executed. A part
 *   and a span are the same call when their call ids match (or, lacking ids, by name in order);
 * - results missing on a call are taken from `tool_call_response` parts of later model inputs and
 *   of the agent span's own input and output; a tool message made only of such results is then
 *   not repeated as a message;
 * - one `agent_call` entry per nested interaction of another agent, at its start.
 */
import type { Message, MessagePart, ToolCall, TranscriptEntry } from '../../../src/model/records.ts';
import { nanosToIso } from '../../model/span.ts';
import { textOf, unwrapResult } from './dialects/messages.ts';
import type { SpanView } from './dialects/span-view.ts';

export interface TranscriptInput {
  /** When the interaction started (ns): the time of the input messages. */
  startNanos: number;
  /** When it ended (ns): the time of an output that no model call recorded. */
  endNanos: number;
  input: Message[];
  /** The record's output, used when no model call recorded output messages. */
  output: Message[];
  /** Invocation spans (root first); their messages, like the model calls' inputs, may hold tool results. */
  invocations: SpanView[];
  modelCalls: SpanView[];
  tools: SpanView[];
  nested: Array<{ startNanos: number; agentId: string; interactionId: string }>;
}

interface Timed {
  at: number;
  seq: number;
  entry: TranscriptEntry;
}

/** Output messages that say when they were made (a model call's, at its end) or not (the agent span's own). */
interface Reply {
  at: number;
  timed: boolean;
  messages: Message[];
}

interface Requested {
  part: ToolCallPart;
  at: number;
  timed: boolean;
}

interface PendingCall {
  at: number;
  call: ToolCall;
  fromSpan: boolean;
  matched: boolean;
  placed: boolean;
  entry?: Timed;
}

/** One step of a reply, in the order the reply states it. */
interface Step {
  at: number;
  message?: Message;
  pending?: PendingCall;
}

export function buildTranscript(input: TranscriptInput): { transcript: TranscriptEntry[]; toolCalls: ToolCall[] } {
  const timed: Timed[] = [];
  const add = (at: number, entry: TranscriptEntry): Timed => {
    const item = { at, seq: timed.length, entry };
    timed.push(item);
    return item;
  };

  for (const message of input.input) add(input.startNanos, messageEntry(message));

  // Assistant turns: each model call's output at its end; without any, the agent's own output, which
  // tells the order of its steps but not their times.
  const replies: Reply[] = [];
  for (const call of input.modelCalls) {
    const messages = call.output();
    if (messages && messages.length > 0) replies.push({ at: call.span.endTimeUnixNano, timed: true, messages });
  }
  if (replies.length === 0) replies.push({ at: input.endNanos, timed: false, messages: input.output });

  const requested: Requested[] = [];
  for (const reply of replies) {
    for (const message of reply.messages) {
      for (const part of message.parts)
        if (isToolCallPart(part)) requested.push({ part, at: reply.at, timed: reply.timed });
    }
  }
  const { calls, byRequest } = matchToolCalls(input.tools, requested);
  fillResults(calls, input);
  const callIds = new Set<string>();
  for (const pending of calls) if (pending.call.callId !== undefined) callIds.add(pending.call.callId);

  // Each reply as it states itself: a message, then the calls it asks for (tool spans often start
  // within the same millisecond, so at equal times insertion order decides).
  let request = 0;
  for (const reply of replies) {
    const steps: Step[] = [];
    for (const message of reply.messages) {
      if (hasContent(message) && !onlyAnswers(message, callIds)) steps.push({ at: reply.at, message });
      for (const part of message.parts) {
        if (!isToolCallPart(part)) continue;
        const pending = byRequest[request++];
        if (pending && !pending.placed) {
          pending.placed = true;
          steps.push({ at: pending.at, pending });
        }
      }
    }
    if (!reply.timed) keepStatedOrder(steps, input.startNanos, reply.at);
    for (const step of steps) {
      if (step.message) add(step.at, messageEntry(step.message));
      else if (step.pending) step.pending.entry = add(step.at, { type: 'tool_call', ...step.pending.call });
    }
  }
  // Tool spans no reply asked for, at their start.
  for (const pending of calls) {
    if (!pending.placed) pending.entry = add(pending.at, { type: 'tool_call', ...pending.call });
  }

  for (const nested of input.nested) {
    add(nested.startNanos, { type: 'agent_call', agentId: nested.agentId, interactionId: nested.interactionId });
  }

  timed.sort((a, b) => a.at - b.at || a.seq - b.seq);
  for (const item of timed) item.entry.time = nanosToIso(item.at);
  const toolCalls = calls
    .slice()
    .sort((a, b) => a.entry!.at - b.entry!.at || a.entry!.seq - b.entry!.seq)
    .map((pending) => pending.call);
  return { transcript: timed.map((item) => item.entry), toolCalls };
}

/**
 * Times for the steps of a reply that carries none (the agent span's own output, at its end): a
 * step is known only to have happened before the next one, and a tool span tells when its call
 * ran. From the last step back, each takes the latest time it can have: its tool span's start, or
 * the next step's time when that is earlier (never before the interaction's start).
 */
function keepStatedOrder(steps: Step[], notBefore: number, end: number): void {
  let limit = end;
  for (let i = steps.length - 1; i >= 0; i--) {
    const step = steps[i];
    step.at = Math.max(notBefore, step.pending?.fromSpan ? Math.min(step.pending.at, limit) : limit);
    limit = step.at;
    if (step.pending) step.pending.at = step.at;
  }
}

type ToolCallPart = { type: 'tool_call'; id?: string; name: string; arguments?: unknown };

function isToolCallPart(part: MessagePart): part is ToolCallPart {
  return part.type === 'tool_call' && typeof part.name === 'string';
}

/** A message worth a transcript entry: it says something beyond the tool calls it makes. */
function hasContent(message: Message): boolean {
  return message.parts.some((part) => part.type !== 'tool_call' && !(part.type === 'text' && part.content === ''));
}

/** A tool message answering only calls the transcript lists: their results are on those calls' entries. */
function onlyAnswers(message: Message, callIds: ReadonlySet<string>): boolean {
  return message.parts.every(
    (part) => part.type === 'tool_call_response' && typeof part.id === 'string' && callIds.has(part.id),
  );
}

function messageEntry(message: Message): TranscriptEntry {
  const entry: TranscriptEntry = { type: 'message', role: message.role, content: textOf(message.parts) };
  // Parts are kept only when the text alone does not say everything (tool calls, reasoning, media).
  if (message.parts.some((part) => part.type !== 'text')) entry.parts = message.parts;
  return entry;
}

/**
 * Tool spans first, each once; then every requested call that no span executed. `byRequest` gives
 * the call each request resolved to (the same call for a request repeated under the same id).
 */
function matchToolCalls(tools: SpanView[], requested: Requested[]): { calls: PendingCall[]; byRequest: PendingCall[] } {
  const calls: PendingCall[] = [];
  const byId = new Map<string, PendingCall>();
  for (const view of tools) {
    if (!view.tool) continue;
    const pending: PendingCall = {
      at: view.span.startTimeUnixNano,
      call: { ...view.tool },
      fromSpan: true,
      matched: false,
      placed: false,
    };
    calls.push(pending);
    if (pending.call.callId !== undefined && !byId.has(pending.call.callId)) byId.set(pending.call.callId, pending);
  }
  const byRequest: PendingCall[] = [];
  const requestedIds = new Map<string, PendingCall>();
  for (const { part, at, timed } of requested) {
    const id = part.id;
    // The same call may be reported twice (a Vercel root repeats its last step's calls).
    const repeated = id !== undefined ? requestedIds.get(id) : undefined;
    if (repeated) {
      byRequest.push(repeated);
      continue;
    }
    const match =
      (id !== undefined ? byId.get(id) : undefined) ??
      calls.find(
        (pending) =>
          pending.fromSpan &&
          !pending.matched &&
          pending.call.name === part.name &&
          (pending.call.callId === undefined || id === undefined),
      );
    let pending: PendingCall;
    if (match) {
      match.matched = true;
      if (match.call.callId === undefined && id !== undefined) match.call.callId = id;
      if (match.call.arguments === undefined && part.arguments !== undefined) match.call.arguments = part.arguments;
      // A tool may start while the reply that asks for it still streams; it follows the reply.
      if (timed && match.at < at) match.at = at;
      pending = match;
    } else {
      const call: ToolCall = { name: part.name };
      if (id !== undefined) call.callId = id;
      if (part.arguments !== undefined) call.arguments = part.arguments;
      pending = { at, call, fromSpan: false, matched: true, placed: false };
      calls.push(pending);
    }
    byRequest.push(pending);
    if (id !== undefined) requestedIds.set(id, pending);
  }
  return { calls, byRequest };
}

/** Results for calls that have none, from the `tool_call_response` parts sent back to the model. */
function fillResults(calls: PendingCall[], input: TranscriptInput): void {
  if (!calls.some((pending) => pending.call.result === undefined && pending.call.callId !== undefined)) return;
  const responses = new Map<string, unknown>();
  const collect = (messages: Message[] | undefined) => {
    for (const message of messages ?? []) {
      for (const part of message.parts) {
        if (part.type === 'tool_call_response' && typeof part.id === 'string' && !responses.has(part.id)) {
          responses.set(part.id, unwrapResult(part.response));
        }
      }
    }
  };
  for (const view of input.modelCalls) collect(view.input());
  // The agent span's own messages too: an agent without model-call spans (or one that records its
  // whole turn) hands tool results back in its input or lists them in its output.
  for (const view of input.invocations) collect(view.input());
  for (const view of input.invocations) collect(view.output());
  for (const pending of calls) {
    const id = pending.call.callId;
    if (pending.call.result === undefined && id !== undefined && responses.has(id))
      pending.call.result = responses.get(id);
  }
}
