/**
 * A one-line progress bar on stderr: redrawn in place on a terminal, printed at most every few
 * seconds otherwise (CI logs stay short).
 */

const WIDTH = 30;
const LOG_INTERVAL_MS = 5_000;

export interface ProgressBar {
  update(done: number, total: number, detail: string): void;
  /** Ends the line (on a terminal) and prints the last state. */
  finish(done: number, total: number, detail: string): void;
}

export function createProgressBar(
  stream: { isTTY?: boolean; write(text: string): unknown } = process.stderr,
): ProgressBar {
  let lastLog = 0;
  const render = (done: number, total: number, detail: string) => {
    const share = total > 0 ? Math.min(1, done / total) : 1;
    const filled = Math.round(share * WIDTH);
    return `[${'#'.repeat(filled)}${'.'.repeat(WIDTH - filled)}] ${done}/${total} ${detail}`;
  };
  return {
    update(done, total, detail) {
      if (stream.isTTY) {
        stream.write(`\r${render(done, total, detail)}\u001b[K`);
        return;
      }
      const now = Date.now();
      if (now - lastLog < LOG_INTERVAL_MS) return;
      lastLog = now;
      stream.write(`${render(done, total, detail)}\n`);
    },
    finish(done, total, detail) {
      stream.write(stream.isTTY ? `\r${render(done, total, detail)}\u001b[K\n` : `${render(done, total, detail)}\n`);
    },
  };
}
