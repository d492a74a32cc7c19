/** Killing a store-writing child process at a random moment, for the stores' kill -9 tests. */
import { spawn } from 'node:child_process';
import { TEST_NODE_FLAGS } from '../../../helpers/test-node-flags.ts';

export interface RunResult {
  acked: number[];
  released: number[];
}

/**
 * Runs a crash writer script (`writer`, on the ledger `target`: a file or a URL) until it has
 * acknowledged `minAcks` batches plus a random delay, then SIGKILLs it. The script prints
 * `acked N` and `released N` lines as the store resolves each write.
 */
export function runAndKill(writer: string, target: string, firstBatch: number, minAcks: number): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...TEST_NODE_FLAGS, writer, target, String(firstBatch)], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const result: RunResult = { acked: [], released: [] };
    let buffer = '';
    let stderr = '';
    let killTimer: NodeJS.Timeout | undefined;
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      buffer += chunk;
      const lines = buffer.split('\n');
      buffer = lines.pop() ?? '';
      for (const line of lines) {
        const [what, batch] = line.split(' ');
        if (what === 'acked') result.acked.push(Number(batch));
        if (what === 'released') result.released.push(Number(batch));
      }
      if (result.acked.length >= minAcks && !killTimer) {
        killTimer = setTimeout(() => child.kill('SIGKILL'), Math.floor(Math.random() * 150));
      }
    });
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      if (signal !== 'SIGKILL')
        reject(new Error(`writer exited with ${code ?? signal} before it was killed: ${stderr}`));
      else resolve(result);
    });
  });
}
