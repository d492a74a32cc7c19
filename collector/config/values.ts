/**
 * Value types shared by component schemas: durations, sizes, endpoints, ratios. Each accepts what
 * a person would write in YAML and yields the normalised value (ms, bytes, `{ host, port }`).
 */
import * as z from 'zod';
import { describeValue } from '../../src/config/describe-value.ts';
import { DURATION_FORM, durationMs } from '../../src/config/duration.ts';

/** A listening address (`host:port`). Port 0 asks the OS for a free port. */
export interface HostPort {
  host: string;
  port: number;
}

const SIZE_UNITS_BYTES: Readonly<Record<string, number>> = {
  b: 1,
  kb: 1_000,
  mb: 1_000_000,
  gb: 1_000_000_000,
  tb: 1_000_000_000_000,
  kib: 1_024,
  mib: 1_048_576,
  gib: 1_073_741_824,
  tib: 1_099_511_627_776,
};

function invalid(context: z.core.$RefinementCtx, message: string): never {
  context.addIssue({ code: 'custom', message });
  return z.NEVER;
}

/** A duration in Evalon's one grammar (`2s`, `1h30m`, `7d`, or a number of milliseconds) -> milliseconds. */
export function duration(options: { positive?: boolean } = {}) {
  return z.unknown().transform((value, context): number => {
    const ms = durationMs(value);
    if (ms === undefined) return invalid(context, `must be ${DURATION_FORM} (got ${describeValue(value)})`);
    if (options.positive && ms === 0) return invalid(context, `must be longer than 0 (got ${describeValue(value)})`);
    return Math.round(ms);
  });
}

/** `64MiB`, `1MB`, `512KiB`, `2TiB`, or a number of bytes -> bytes (at least 1, or 0 with `allowZero`). */
export function size(options: { allowZero?: boolean } = {}) {
  return z.unknown().transform((value, context): number => {
    let bytes: number | undefined;
    if (typeof value === 'number') bytes = value;
    else if (typeof value === 'string') {
      const match = /^\s*(\d+(?:\.\d+)?)\s*([a-z]*)\s*$/i.exec(value);
      const unit = SIZE_UNITS_BYTES[(match?.[2] || 'b').toLowerCase()];
      if (match && unit !== undefined) bytes = Number(match[1]) * unit;
    }
    if (bytes === undefined || !Number.isFinite(bytes) || bytes < (options.allowZero ? 0 : 1)) {
      return invalid(context, `must be a size such as 64MiB, 1MB or a number of bytes (got ${describeValue(value)})`);
    }
    return Math.floor(bytes);
  });
}

/**
 * A listening address `host:port` (`[::1]:4318` for IPv6, `:4318` for every interface). With
 * `allowScheme`, `http://host:port` is accepted too (exporters name endpoints as URLs).
 */
export function listenEndpoint(options: { allowScheme?: boolean } = {}) {
  return z.unknown().transform((value, context): HostPort => {
    const expected = `must be host:port, such as 127.0.0.1:4318 (got ${describeValue(value)})`;
    if (typeof value !== 'string') return invalid(context, expected);
    let text = value.trim();
    const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(text);
    if (scheme) {
      if (!options.allowScheme || scheme[1]!.toLowerCase() !== 'http') {
        return invalid(context, `must be host:port without a scheme (got ${describeValue(value)})`);
      }
      text = text.slice(scheme[0].length).replace(/\/$/, '');
    }
    const match = /^(?:\[([^\]]+)\]|([^:/[\]\s]*)):(\d+)$/.exec(text);
    if (!match) return invalid(context, expected);
    const host = match[1] ?? (match[2] || '0.0.0.0');
    const port = Number(match[3]);
    if (port > 65_535) return invalid(context, `has port ${port}, which is out of range (0-65535)`);
    return { host, port };
  });
}

/** An exporter's base URL (`http://host:port`, `https://…`); a bare `host:port` means `http://`. */
export function urlEndpoint() {
  return z.unknown().transform((value, context): string => {
    const expected = `must be a URL such as http://127.0.0.1:4328 (got ${describeValue(value)})`;
    if (value === undefined) return invalid(context, 'is required');
    if (typeof value !== 'string' || value.trim() === '') return invalid(context, expected);
    const text = /^[a-z][a-z0-9+.-]*:\/\//i.test(value.trim()) ? value.trim() : `http://${value.trim()}`;
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      return invalid(context, expected);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      return invalid(context, `must be an http:// or https:// URL (got ${describeValue(value)})`);
    }
    return url.href.replace(/\/+$/, '');
  });
}

/** `sampling-ratio`: a number from 0 to 1. */
export function ratio() {
  return z.unknown().transform((value, context): number => {
    if (typeof value !== 'number' || !Number.isFinite(value)) {
      return invalid(context, `must be a number between 0 and 1 (got ${describeValue(value)})`);
    }
    if (value < 0 || value > 1) return invalid(context, `must be between 0 and 1 (got ${value})`);
    return value;
  });
}

/** A whole number of at least `minimum`. */
export function count(minimum: number) {
  return z.unknown().transform((value, context): number => {
    if (typeof value !== 'number' || !Number.isInteger(value)) {
      return invalid(context, `must be a whole number (got ${describeValue(value)})`);
    }
    if (value < minimum) return invalid(context, `must be at least ${minimum} (got ${value})`);
    return value;
  });
}

/**
 * A non-empty string. A number is taken as its text: `${env:TOKEN}` with `TOKEN=123456` reads as a
 * number (see env-expansion.ts) and that conversion is lossless, so this gives the text back.
 */
export function text() {
  return z.unknown().transform((value, context): string => {
    if (typeof value === 'number') return String(value);
    if (typeof value !== 'string' || value === '')
      return invalid(context, `must be a non-empty string (got ${describeValue(value)})`);
    return value;
  });
}
