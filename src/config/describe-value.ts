/**
 * A value as a short phrase for error messages, in the two wordings messages use:
 *
 *   bare      `string "x"`, `number 2`, `a list`         after "(got …" in a predicate:
 *                                                        `must be a whole number (got string "many")`
 *   article   `a string ("x")`, `a number (2)`, `a list`  after "got" in `expected …, got …`
 *
 * Lists, mappings, empty values (`key:` in YAML) and missing values read the same in both.
 */

export type ValueWording = 'bare' | 'article';

/** Longer strings are cut, so a message stays one readable line. */
const MAX_SHOWN_LENGTH = 60;

export function describeValue(value: unknown, wording: ValueWording = 'bare'): string {
  if (value === null) return 'an empty value';
  if (value === undefined) return 'nothing';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  const shown =
    typeof value === 'string'
      ? JSON.stringify(value.length > MAX_SHOWN_LENGTH ? `${value.slice(0, MAX_SHOWN_LENGTH - 3)}...` : value)
      : String(value);
  return wording === 'bare' ? `${typeof value} ${shown}` : `a ${typeof value} (${shown})`;
}
