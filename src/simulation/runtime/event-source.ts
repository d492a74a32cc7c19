/**
 * An event source: it sees every message of the simulation and may emit derived events, which go
 * to the transcript and to the participants observing the source. A simulated source asks the
 * model; a custom source is code given in the run options. A source makes one call at a time
 * (activity arriving meanwhile is considered in the next call), undeclared event names are dropped
 * and an event identical to one already emitted is not emitted again.
 */
import type { ModelClient } from '../../judge/model-client.ts';
import { responseText } from '../../judge/model-client.ts';
import type { JudgeTranscriptEntry } from '../../judge/transcript.ts';
import type { SimulationEvent } from '../agent/agent.ts';
import type { EventSourceSpec } from '../scenario/scenario.ts';
import type { EventSourceActor, RunnerPort } from './actor.ts';
import { canonicalJson, type CompletionGate } from './completion-gate.ts';
import { eventSourceSystemPrompt, eventSourceUserPrompt, parseEmittedEvents } from './event-source-prompt.ts';
import { invoke } from './invoke.ts';
import { createMailbox } from './mailbox.ts';

export const EVENT_SOURCE_MAX_TOKENS = 1024;

/** An event source implemented in code (`type: custom`). */
export interface CustomEventSource {
  /** Called with each new message entry and everything seen so far; returns the events to emit. */
  onActivity(
    entry: JudgeTranscriptEntry,
    seen: readonly JudgeTranscriptEntry[],
  ): SimulationEvent[] | Promise<SimulationEvent[]>;
}

export interface EventSourceOptions {
  source: EventSourceSpec;
  gate: CompletionGate;
  runner: RunnerPort;
  /** For simulated sources: the run's gated model client. */
  model: ModelClient;
  custom?: CustomEventSource;
  modelName?: string;
}

type Internal =
  | { type: 'entry'; entry: JudgeTranscriptEntry }
  | { type: 'answered'; events: SimulationEvent[] }
  | { type: 'failed'; cause: unknown };

export function createEventSource(options: EventSourceOptions): EventSourceActor {
  const { source, gate, runner } = options;
  const seen: JudgeTranscriptEntry[] = [];
  const emitted = new Set<string>();
  let busy = false;
  let dirty = false;
  let calls = 0;
  let stopped = false;

  const mailbox = createMailbox<Internal>(handle, (error) => runner.fail(source.name, error, 'event_source'));

  function handle(input: Internal): void {
    if (stopped) return;
    if (input.type === 'entry') {
      seen.push(input.entry);
      if (input.entry.type !== 'message') return;
      if (busy) dirty = true;
      else ask(input.entry);
      return;
    }
    if (input.type === 'failed') {
      stopped = true;
      runner.fail(source.name, input.cause, 'event_source');
      return;
    }
    busy = false;
    const fresh = input.events.filter((event) => {
      const key = `${event.name}:${canonicalJson(event.data)}`;
      if (emitted.has(key)) return false;
      emitted.add(key);
      return true;
    });
    if (fresh.length > 0) runner.emit(source.name, fresh);
    if (dirty) {
      dirty = false;
      ask(seen[seen.length - 1]);
    }
  }

  function ask(latest: JudgeTranscriptEntry): void {
    busy = true;
    const snapshot = seen.slice();
    const answer = options.custom
      ? gate.run(
          'event_source',
          `${source.name}#${++calls}`,
          () => invoke(() => options.custom!.onActivity(latest, snapshot)),
          false,
        )
      : invoke(() =>
          options.model.createMessage({
            ...(options.modelName ? { model: options.modelName } : {}),
            max_tokens: EVENT_SOURCE_MAX_TOKENS,
            system: eventSourceSystemPrompt(source),
            messages: [{ role: 'user', content: eventSourceUserPrompt(snapshot) }],
          }),
        ).then((response) => {
          if (response === null || response === undefined) throw new TypeError('the model returned no response');
          return parseEmittedEvents(responseText(response), source);
        });
    answer.then(
      (events) => mailbox.post({ type: 'answered', events: Array.isArray(events) ? events : [] }),
      (cause: unknown) => mailbox.post({ type: 'failed', cause }),
    );
  }

  return {
    name: source.name,
    post: (entry) => mailbox.post({ type: 'entry', entry }),
    stop() {
      stopped = true;
      mailbox.close();
    },
  };
}
