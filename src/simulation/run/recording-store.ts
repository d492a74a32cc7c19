/**
 * Recordings on disk (`--record DIR` / `--replay DIR`): `<dir>/<scenario>/trial-<n>.json`, the
 * completions of one run in delivery order.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { RecordedCompletion } from '../runtime/completion-gate.ts';

export const RECORDING_FORMAT = 'evalon-simulation-recording';
export const RECORDING_VERSION = 1;

export interface RecordingFile {
  format: typeof RECORDING_FORMAT;
  version: number;
  scenario: string;
  trial: number;
  seed: number;
  completions: RecordedCompletion[];
}

/** The recording could not be found or read. */
export class RecordingError extends Error {
  readonly path: string;
  constructor(path: string, message: string, options: { cause?: unknown } = {}) {
    super(`${path}: ${message}`, options);
    this.name = 'RecordingError';
    this.path = path;
  }
}

export function recordingPath(dir: string, scenario: string, trial: number): string {
  return join(dir, scenario, `trial-${trial}.json`);
}

export async function saveRecording(dir: string, file: Omit<RecordingFile, 'format' | 'version'>): Promise<string> {
  const path = recordingPath(dir, file.scenario, file.trial);
  await mkdir(join(dir, file.scenario), { recursive: true });
  await writeFile(path, `${JSON.stringify({ format: RECORDING_FORMAT, version: RECORDING_VERSION, ...file })}\n`);
  return path;
}

export async function loadRecording(dir: string, scenario: string, trial: number): Promise<RecordingFile> {
  const path = recordingPath(dir, scenario, trial);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new RecordingError(path, `no recording for ${scenario} trial ${trial} (record it first with --record)`, {
      cause: error,
    });
  }
  let parsed: Partial<RecordingFile>;
  try {
    parsed = JSON.parse(text) as Partial<RecordingFile>;
  } catch (error) {
    throw new RecordingError(path, 'not valid JSON (record it again)', { cause: error });
  }
  if (
    parsed.format !== RECORDING_FORMAT ||
    parsed.version !== RECORDING_VERSION ||
    !Array.isArray(parsed.completions)
  ) {
    throw new RecordingError(path, `not a version ${RECORDING_VERSION} simulation recording (record it again)`);
  }
  return parsed as RecordingFile;
}
