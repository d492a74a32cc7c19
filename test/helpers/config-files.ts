/** Writes configuration files for a test into a fresh temporary directory. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';

/** The directories written by the test file: removed after its last test (one may reload them until then). */
const written: string[] = [];
afterAll(() => {
  for (const directory of written.splice(0)) rmSync(directory, { recursive: true, force: true });
});

/** `{ 'base.yaml': '…' }` -> absolute paths, in the order given. */
export function writeConfigFiles(files: Record<string, string>): string[] {
  const directory = mkdtempSync(join(tmpdir(), 'evalon-config-'));
  written.push(directory);
  return Object.entries(files).map(([name, text]) => {
    const path = join(directory, name);
    writeFileSync(path, text);
    return path;
  });
}

/** The smallest valid configuration, to which a test adds what it is about. */
export const MINIMAL_PIPELINE = `
receivers:
  otlp:
service:
  pipelines:
    traces: { receivers: [otlp], processors: [interactions, evaluation] }
`;
