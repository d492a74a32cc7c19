/** What a simulated event source's model sees, and how its answer is read. */
import { compactJson, isJsonObject } from '../../judge/json-value.ts';
import type { JudgeTranscriptEntry } from '../../judge/transcript.ts';
import type { SimulationEvent } from '../agent/agent.ts';
import type { EventSourceSpec } from '../scenario/scenario.ts';

export function eventSourceSystemPrompt(source: EventSourceSpec): string {
  const emits = source.emits.map(
    (e) =>
      `- ${e.event}: ${Object.entries(e.schema)
        .map(([k, v]) => `${k}: ${v}`)
        .join(', ')}`,
  );
  return [
    'You are a simulated event source in a simulation that tests an AI agent.',
    `You represent: ${source.description.trim()}`,
    'You can emit these event types:',
    ...(emits.length > 0 ? emits : ['- (any event the description warrants)']),
    '',
    'You observe all activity in the simulation. Decide whether the latest activity warrants emitting events.',
    'Return only a JSON array of events, or [] when none is warranted, in the format:',
    '[{"name": "event_type", "data": {"key": "value"}}]',
    'Emit an event only when the activity clearly warrants it, and never emit the same event twice.',
  ].join('\n');
}

export function eventSourceUserPrompt(seen: readonly JudgeTranscriptEntry[]): string {
  const lines = seen.map((entry) => {
    if (entry.type === 'message') return `[${entry.sender}]: ${entry.content}`;
    if (entry.type === 'event') return `[event: ${entry.name}] ${compactJson(entry.data)}`;
    return '';
  });
  return `Activity so far:\n${lines.filter((line) => line !== '').join('\n')}\n\nShould any events be emitted?`;
}

/**
 * Events from a reply: a JSON array (optionally in a fenced block) of `{name, data}` items. Items
 * without a string name and an object data are dropped, as are names the source does not declare
 * (when it declares any). Unreadable replies give no events.
 */
export function parseEmittedEvents(text: string, source: EventSourceSpec): SimulationEvent[] {
  const fenced = /```(?:json)?\s*([\s\S]*?)```/i.exec(text);
  let value: unknown;
  try {
    value = JSON.parse((fenced ? fenced[1] : text).trim());
  } catch {
    return [];
  }
  if (!Array.isArray(value)) return [];
  const declared = new Set(source.emits.map((e) => e.event));
  return value
    .filter(
      (item): item is { name: string; data: Record<string, never> } =>
        isJsonObject(item) && typeof item.name === 'string' && isJsonObject(item.data),
    )
    .filter((item) => declared.size === 0 || declared.has(item.name))
    .map((item) => ({ name: item.name, data: item.data }));
}
