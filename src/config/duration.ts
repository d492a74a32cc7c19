/**
 * The one duration grammar of Evalon, for the collector's configuration, scenario files, CLI flags,
 * API query parameters and evaluator settings alike:
 *
 *   a number            milliseconds (`250`, `1500.5`)
 *   a unit or several   `500ms`, `2s`, `5m`, `1h30m`, `7d`, `2w` (units ms, s, m, h, d, w; each once
 *                       at most, largest first is not required; fractions allowed: `1.5h`)
 *
 * Whitespace around the text is ignored; nothing else is accepted (no sign, no exponent, no spaces
 * between parts), so a typo is an error rather than a surprise.
 */

const UNIT_MS: Readonly<Record<string, number>> = {
  ms: 1,
  s: 1_000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 604_800_000,
};

const PART = /(\d+(?:\.\d+)?)(ms|s|m|h|d|w)/y;
const PLAIN_NUMBER = /^\d+(?:\.\d+)?$/;

/** What a duration may be given as: milliseconds, or text in the grammar above. */
export type Duration = number | string;

/** The expected form, for error messages: `must be ${DURATION_FORM}`. */
export const DURATION_FORM = 'a duration such as 500ms, 30s, 5m, 1h30m or 7d, or a number of milliseconds';

/** Milliseconds of `text`, or undefined when it is not a duration. */
export function parseDuration(text: string): number | undefined {
  const trimmed = text.trim();
  if (trimmed === '') return undefined;
  if (PLAIN_NUMBER.test(trimmed)) return Number(trimmed);
  let total = 0;
  const seen = new Set<string>();
  for (let index = 0; index < trimmed.length; index = PART.lastIndex) {
    PART.lastIndex = index;
    const match = PART.exec(trimmed);
    if (!match) return undefined;
    const unit = match[2]!;
    if (seen.has(unit)) return undefined;
    seen.add(unit);
    total += Number(match[1]) * UNIT_MS[unit]!;
  }
  return total;
}

/** Milliseconds of a number or a duration text; undefined when `value` is neither (or not finite, or negative). */
export function durationMs(value: unknown): number | undefined {
  let ms: number | undefined;
  if (typeof value === 'number') ms = value;
  else if (typeof value === 'string') ms = parseDuration(value);
  return ms !== undefined && Number.isFinite(ms) && ms >= 0 ? ms : undefined;
}

/** A short human form of `ms`: `250ms`, `30s`, `5m`, `1h30m`, `7d`. */
export function formatDuration(ms: number): string {
  if (ms < 1_000 || !Number.isInteger(ms / 1_000)) return `${ms}ms`;
  let rest = ms;
  let text = '';
  for (const unit of ['w', 'd', 'h', 'm', 's'] as const) {
    const size = UNIT_MS[unit]!;
    const count = Math.floor(rest / size);
    if (count > 0) {
      text += `${count}${unit}`;
      rest -= count * size;
    }
  }
  return text;
}
