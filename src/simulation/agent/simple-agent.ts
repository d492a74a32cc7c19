/**
 * The code agent: the simplest way to put your own code under test. A SimpleAgent sees only the
 * conversation turns (tool uses are left out), events as `name: {json}` lines, and answers with an
 * SimpleAgentReply. A reply may carry a trace: JSON (given as a string) describing how it was generated.
 */
import { compactJson, type JsonValue } from '../../judge/json-value.ts';
import type { Agent, HistoryEntry, SimulationEvent } from './agent.ts';
import { END_ACTION } from './agent.ts';

export interface HistoryTurn {
  conversation: string;
  sender: string;
  content: string;
  /** The turn's trace as compact JSON, when it has one. */
  trace?: string;
}

export type SimpleAgentReply =
  | { kind: 'send'; content: string; trace?: JsonValue }
  | { kind: 'end' }
  | { kind: 'end_after'; content: string; trace?: JsonValue };

/** A trace string that is not valid JSON. */
export class InvalidTraceError extends Error {
  constructor(trace: string, cause: unknown) {
    super(
      'agent reply: the trace is not valid JSON ' +
        `(${JSON.stringify(trace.length > 60 ? `${trace.slice(0, 60)}…` : trace)})`,
      { cause },
    );
    this.name = 'InvalidTraceError';
  }
}

export const SimpleAgentReply = {
  /** Say `content` (empty content is silence), with an optional trace as a JSON string. */
  send(content: string, traceJson?: string): SimpleAgentReply {
    return traceJson === undefined
      ? { kind: 'send', content }
      : { kind: 'send', content, trace: parseTrace(traceJson) };
  },
  /** End the simulation. */
  end(): SimpleAgentReply {
    return { kind: 'end' };
  },
  /** Say `content`, then end the simulation. */
  endAfter(content: string, traceJson?: string): SimpleAgentReply {
    return traceJson === undefined
      ? { kind: 'end_after', content }
      : { kind: 'end_after', content, trace: parseTrace(traceJson) };
  },
};

export interface SimpleAgent {
  step(
    respondIn: string,
    history: readonly HistoryTurn[],
    events: readonly string[],
  ): SimpleAgentReply | Promise<SimpleAgentReply>;
}

/** Adapts a SimpleAgent to the Agent contract; its messages are sent as `agentName`. */
export function fromSimpleAgent(simple: SimpleAgent, agentName: string): Agent {
  return {
    async step(history: readonly HistoryEntry[], events: readonly SimulationEvent[], respondIn: string) {
      const turns: HistoryTurn[] = history.flatMap((entry) =>
        entry.type === 'turn'
          ? [
              {
                conversation: entry.conversation,
                sender: entry.sender,
                content: entry.content,
                ...(entry.trace !== undefined ? { trace: compactJson(entry.trace) } : {}),
              },
            ]
          : [],
      );
      const lines = events.map((event) => `${event.name}: ${compactJson(event.data)}`);
      const reply = await simple.step(respondIn, turns, lines);
      if (reply === null || reply === undefined) throw new TypeError('the SimpleAgent step returned no reply');
      if (reply.kind === 'end') return END_ACTION;
      if (reply.kind !== 'send' && reply.kind !== 'end_after')
        throw new TypeError(
          `the SimpleAgent step returned an unknown reply kind ${JSON.stringify((reply as { kind?: unknown }).kind)}`,
        );
      const message =
        reply.trace === undefined
          ? { sender: agentName, content: reply.content ?? '' }
          : { sender: agentName, content: reply.content ?? '', trace: reply.trace };
      return { type: 'send', message, toolInteractions: [], ...(reply.kind === 'end_after' ? { endAfter: true } : {}) };
    },
  };
}

function parseTrace(traceJson: string): JsonValue {
  try {
    return JSON.parse(traceJson) as JsonValue;
  } catch (error) {
    throw new InvalidTraceError(traceJson, error);
  }
}
