/**
 * The collector's log: the thin interface the code uses, backed by pino. One line per event on
 * stderr, in either encoding of `service.telemetry.logs.encoding`:
 *
 * - `console` (default): `<time> <level> <message>` and any fields as `key=value`, for people;
 * - `json`: one JSON object per line (`level`, `time`, `msg` and the fields), for log shippers.
 *
 * Secrets never reach a line: every value given as `secrets` (the configured bearer tokens, secret
 * header values, the PostgreSQL password: config/secrets.ts) is replaced by `[REDACTED]` wherever it
 * appears in a message or a field, and fields named like credentials are redacted by pino.
 */
import { pino, stdTimeFunctions } from 'pino';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
export type LogEncoding = 'console' | 'json';
export const LOG_LEVELS: readonly LogLevel[] = ['debug', 'info', 'warn', 'error'];
export const LOG_ENCODINGS: readonly LogEncoding[] = ['console', 'json'];
export const DEFAULT_LOG_LEVEL: LogLevel = 'info';
export const DEFAULT_LOG_ENCODING: LogEncoding = 'console';

/** Extra data of a line: low-cardinality facts (a count, an id, a path), never a secret. */
export type LogFields = Record<string, unknown>;

export interface Logger {
  /** Optional so that small loggers (tests, embedders) need not write one; call as `logger.debug?.(…)`. */
  debug?(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
}

export interface LoggerOptions {
  /** Lines below this level are not written (default `info`). */
  level?: LogLevel;
  encoding?: LogEncoding;
  /** The same as `level: warn` (commands whose progress is their own output). */
  quiet?: boolean;
  /** Where each line goes, without its newline (default: stderr, synchronously). */
  write?: (line: string) => void;
  /** Values never written: replaced by `[REDACTED]` in messages and fields. */
  secrets?: readonly string[];
}

export const REDACTED = '[REDACTED]';
/** Shorter values are not scrubbed: they would blank out ordinary words. Such tokens are weak anyway. */
const MIN_SECRET_LENGTH = 4;
/** Fields that carry credentials by their name, at the top or one level down. */
const REDACTED_FIELDS = ['authorization', 'password', 'token', 'bearer_token', 'bearerToken', 'headers.authorization'];

export function createLogger(options: LoggerOptions = {}): Logger {
  const write = options.write ?? ((line: string) => process.stderr.write(`${line}\n`));
  const encoding = options.encoding ?? DEFAULT_LOG_ENCODING;
  const level = options.quiet ? 'warn' : (options.level ?? DEFAULT_LOG_LEVEL);
  const scrub = createScrubber(options.secrets ?? []);
  const destination = {
    write(chunk: string) {
      const line = chunk.endsWith('\n') ? chunk.slice(0, -1) : chunk;
      write(encoding === 'json' ? line : consoleLine(line));
    },
  };
  const logger = pino(
    {
      level,
      base: undefined,
      timestamp: stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      redact: { paths: [...REDACTED_FIELDS, ...REDACTED_FIELDS.map((field) => `*.${field}`)], censor: REDACTED },
    },
    destination,
  );
  const log =
    (method: LogLevel) =>
    (message: string, fields?: LogFields): void => {
      if (fields === undefined) logger[method](scrub(message));
      else logger[method](scrubValue(fields, scrub) as LogFields, scrub(message));
    };
  return { debug: log('debug'), info: log('info'), warn: log('warn'), error: log('error') };
}

export const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} };

/** Pino's JSON line as `<time> <level> <message> key=value…`, the console encoding. */
function consoleLine(json: string): string {
  const { time, level, msg, ...fields } = JSON.parse(json) as Record<string, unknown>;
  const extra = Object.entries(fields).map(
    ([key, value]) => ` ${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`,
  );
  return `${String(time)} ${String(level).padEnd(5)} ${String(msg ?? '')}${extra.join('')}`;
}

function createScrubber(secrets: readonly string[]): (text: string) => string {
  // Longest first, so that a secret containing another is replaced whole.
  const values = [...new Set(secrets)].filter((secret) => secret.length >= MIN_SECRET_LENGTH);
  values.sort((a, b) => b.length - a.length);
  if (values.length === 0) return (text) => text;
  return (text) => values.reduce((result, secret) => result.replaceAll(secret, REDACTED), text);
}

function scrubValue(value: unknown, scrub: (text: string) => string): unknown {
  if (typeof value === 'string') return scrub(value);
  if (Array.isArray(value)) return value.map((item) => scrubValue(item, scrub));
  if (typeof value === 'object' && value !== null && !(value instanceof Error))
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, scrubValue(item, scrub)]));
  return value;
}
