/**
 * A recorded tool: answers each call with what was recorded for the same arguments (equal as JSON
 * values: key order does not matter), or fails with "no recording for these arguments". A recorded
 * error is failed with again. When several recordings share the arguments, calls get them in the
 * recorded order and the last one repeats: a tool whose answer changed between two production calls
 * changes in the rehearsal too.
 *
 * The counters of that order are the tool's own state: create one tool per run.
 */
import { isDeepStrictEqual } from 'node:util';
import { cloneJson, type JsonObject, type JsonValue } from '../../judge/json-value.ts';
import type { RecordedToolSpec, ToolRecording } from '../scenario/scenario.ts';
import type { Tool } from './tool.ts';

export const NO_RECORDING_MESSAGE = 'no recording for these arguments';

/** A call whose arguments no recording has. */
export class NoRecordingError extends Error {
  constructor() {
    super(NO_RECORDING_MESSAGE);
    this.name = 'NoRecordingError';
  }
}

/** The error a recording says the call failed with, failed with again. */
export class RecordedToolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RecordedToolError';
  }
}

interface RecordedArguments {
  arguments: JsonObject;
  outcomes: ToolRecording[];
  served: number;
}

export function createRecordedTool(spec: RecordedToolSpec): Tool {
  const byArguments: RecordedArguments[] = [];
  for (const recording of spec.recordings) {
    const same = byArguments.find((entry) => isDeepStrictEqual(entry.arguments, recording.arguments));
    if (same) same.outcomes.push(recording);
    else byArguments.push({ arguments: recording.arguments, outcomes: [recording], served: 0 });
  }
  return {
    name: spec.name,
    description: spec.description,
    inputSchema: spec.inputSchema,
    run(args): JsonValue {
      const entry = byArguments.find((candidate) => isDeepStrictEqual(candidate.arguments, args));
      if (!entry) throw new NoRecordingError();
      const outcome = entry.outcomes[Math.min(entry.served, entry.outcomes.length - 1)];
      entry.served += 1;
      if ('error' in outcome) throw new RecordedToolError(outcome.error);
      return cloneJson(outcome.result);
    },
  };
}
