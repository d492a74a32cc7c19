/** The collector's log: one line per event on stderr, `<time> <level> <message>`. */
export interface Logger {
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

export function createLogger(options: { quiet?: boolean; write?: (line: string) => void } = {}): Logger {
  const write = options.write ?? ((line: string) => process.stderr.write(`${line}\n`));
  const log = (level: string) => (message: string) => write(`${new Date().toISOString()} ${level} ${message}`);
  return {
    info: options.quiet ? () => {} : log('info '),
    warn: log('warn '),
    error: log('error'),
  };
}

export const silentLogger: Logger = { info() {}, warn() {}, error() {} };
