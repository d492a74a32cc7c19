/**
 * How text travels inside the judge's `<transcript>` block. Every value an agent, a user or a tool
 * produced is written as JSON: text as a JSON string literal, tool arguments and results as compact
 * JSON. JSON never contains a raw line break, so one entry is always exactly one line, and nothing
 * inside a value can start a line of its own — a message reading `\n[tool_call] issue_refund(…)`
 * stays the text of its own entry. On top of what `JSON.stringify` escapes:
 *
 * - U+0085, U+2028 and U+2029 (which JSON leaves raw but a reader may take for line breaks) are
 *   written `\u0085`, `\u2028`, `\u2029`;
 * - every `</` becomes `<\/` (a valid JSON escape of `/`, so the value still decodes to the same
 *   text), whatever follows it: `</transcript>`, `</TRANSCRIPT>`, `</Transcript >` and `< /transcript`
 *   cannot close a block in any letter case.
 *
 * Names the renderer prints outside a value (a sender, a tool, an event, a conversation, a turn
 * label) are printed bare only when they are plain words; anything else is quoted the same way.
 */

const LINE_BREAKS_JSON_KEEPS = /[\u0085\u2028\u2029]/g;
const HAS_LINE_BREAK_JSON_KEEPS = /[\u0085\u2028\u2029]/;
const SPACED_CLOSING_TAG = /<(\s+)\//g;
const HAS_SPACED_CLOSING_TAG = /<\s+\//;
/** A name printed bare: letters, digits and `_ . : @ / -`, nothing that could read as syntax. */
const PLAIN_NAME = /^[\p{L}\p{N}_.:@/-]{1,200}$/u;

/** A string as a JSON string literal, safe inside the transcript block. */
export function encodeText(text: string): string {
  return makeSafe(JSON.stringify(text));
}

/** A JSON value as compact JSON, safe inside the transcript block (`null` for undefined). */
export function encodeJson(value: unknown): string {
  return makeSafe(JSON.stringify(value ?? null) ?? 'null');
}

/** A name as printed in an entry's head: bare when it is a plain word, else a JSON string literal. */
export function encodeName(name: string): string {
  return PLAIN_NAME.test(name) ? name : encodeText(name);
}

function makeSafe(json: string): string {
  let safe = json;
  if (HAS_LINE_BREAK_JSON_KEEPS.test(safe)) {
    safe = safe.replace(LINE_BREAKS_JSON_KEEPS, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
  }
  // `<` appears in JSON text only inside strings, where `\/` is a valid escape of `/`. (A plain
  // replaceAll first: on a 2 MB page of HTML it is several times faster than the regular expression.)
  if (!safe.includes('<')) return safe;
  if (safe.includes('</')) safe = safe.replaceAll('</', '<\\/');
  return HAS_SPACED_CLOSING_TAG.test(safe) ? safe.replace(SPACED_CLOSING_TAG, '<$1\\/') : safe;
}

/**
 * Where a cut of encoded text may end its head: `end` moved back so that the head ends neither
 * inside an escape sequence (`\n`, `\"`, `\u2028`…) nor between the two halves of a surrogate pair.
 */
export function safeHeadEnd(text: string, end: number): number {
  let at = Math.max(0, Math.min(end, text.length));
  const split = escapeAround(text, at);
  if (split !== undefined) at = split.start;
  if (at > 0 && isHighSurrogate(text.charCodeAt(at - 1))) at -= 1;
  return at;
}

/** Where a cut may start its tail: `start` moved forward past an escape or surrogate pair it would split. */
export function safeTailStart(text: string, start: number): number {
  let at = Math.max(0, Math.min(start, text.length));
  const split = escapeAround(text, at);
  if (split !== undefined) at = split.end;
  if (at < text.length && isLowSurrogate(text.charCodeAt(at))) at += 1;
  return at;
}

/** The escape sequence that `position` falls strictly inside (started before it, ends after it), if any. */
function escapeAround(text: string, position: number): { start: number; end: number } | undefined {
  // The longest escape is `\uXXXX` (6 characters): a split one started at most 5 characters back.
  for (let start = position - 1; start >= Math.max(0, position - 5); start--) {
    if (text.charCodeAt(start) !== BACKSLASH || !startsEscape(text, start)) continue;
    const end = start + (text[start + 1] === 'u' ? 6 : 2);
    return end > position ? { start, end } : undefined;
  }
  return undefined;
}

/** A backslash starts an escape when the run of backslashes before it has even length. */
function startsEscape(text: string, index: number): boolean {
  let run = 0;
  for (let i = index - 1; i >= 0 && text.charCodeAt(i) === BACKSLASH; i--) run++;
  return run % 2 === 0;
}

const BACKSLASH = 0x5c;
const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff;
const isLowSurrogate = (code: number) => code >= 0xdc00 && code <= 0xdfff;
