/**
 * `${env:NAME}` and `${env:NAME:-default}` in configuration values (not in keys), as the
 * OpenTelemetry Collector writes them. Rules (docs/configuration.md, "Environment variables"):
 * - `${env:NAME:-default}` takes the default when NAME is unset or empty, as a shell does.
 * - An unset NAME without a default is an error naming the variable and the key, except in an
 *   optional key (OPTIONAL_KEYS), where it leaves the key out, as if it were not written.
 * - A value that is exactly one reference takes the variable's type when its text is a canonical
 *   number or `true`/`false` (`${env:PORT}` -> 4318); anything else stays a string.
 * - `$${` writes a literal `${`. Other `${…}` text is left as it is.
 */
import type { Finding } from '../../src/config/config-problem.ts';
import { isRecord, subjectOf, type YamlPath } from '../../src/config/yaml-path.ts';
import { componentTypeOf } from './component-id.ts';

export type Environment = Readonly<Record<string, string | undefined>>;

/** A key in a pattern: itself, `*` for any key, or a test (any id of a component type). */
type Segment = string | ((key: string | number) => boolean);
/** `otlphttp` and every `otlphttp/<name>`. */
const idOfType =
  (type: string): Segment =>
  (key) =>
    typeof key === 'string' && componentTypeOf(key) === type;

/** Keys whose value may be absent: an unset variable there removes the key. */
const OPTIONAL_KEYS: ReadonlyArray<ReadonlyArray<Segment>> = [
  ['receivers', 'otlp', 'protocols', 'http', 'auth', 'bearer_token'],
  ['receivers', 'otlp', 'protocols', 'grpc', 'auth', 'bearer_token'],
  ['extensions', 'api', 'auth', 'bearer_token'],
  ['exporters', idOfType('otlphttp'), 'headers', '*'],
];

const REFERENCE = /\$(\$)?\{([^}]*)\}/g;
const ENV_REFERENCE = /^env:([^:]*)(?::-([\s\S]*))?$/;
const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const LOOKS_LIKE_VARIABLE = /^[A-Z_][A-Z0-9_]*$/;

export interface ExpansionResult {
  value: Record<string, unknown>;
  problems: Finding[];
  warnings: Finding[];
}

export function expandEnvironment(tree: Record<string, unknown>, env: Environment): ExpansionResult {
  const problems: Finding[] = [];
  const warnings: Finding[] = [];

  const visit = (value: unknown, path: YamlPath): { value: unknown; omit?: boolean } => {
    if (typeof value === 'string') return expandValue(value, path);
    if (Array.isArray(value)) return { value: value.map((item, index) => visit(item, [...path, index]).value) };
    if (!isRecord(value)) return { value };
    const result: Record<string, unknown> = {};
    for (const [key, child] of Object.entries(value)) {
      const expanded = visit(child, [...path, key]);
      if (!expanded.omit) result[key] = expanded.value;
    }
    return { value: result };
  };

  const expandValue = (text: string, path: YamlPath): { value: unknown; omit?: boolean } => {
    const optional = isOptionalKey(path);
    const unset: string[] = [];
    let references = 0;
    const expanded = text.replace(REFERENCE, (match, escaped: string | undefined, inner: string) => {
      if (escaped) return match.slice(1);
      const reference = ENV_REFERENCE.exec(inner);
      if (!reference) {
        if (inner.startsWith('env:')) {
          problems.push({
            at: path,
            message:
              `${subjectOf(path)} has a malformed reference ${match} (write \${env:NAME} or ` +
              `\${env:NAME:-default})`,
          });
        } else if (LOOKS_LIKE_VARIABLE.test(inner)) {
          warnings.push({
            at: path,
            message:
              `${subjectOf(path)} contains ${match}, which is not expanded (write \${env:${inner}} to read ` +
              'the environment variable)',
          });
        }
        return match;
      }
      const [, name = '', fallback] = reference;
      if (!VARIABLE_NAME.test(name)) {
        problems.push({
          at: path,
          message: `${subjectOf(path)} names an invalid environment variable ${JSON.stringify(name)} in ${match}`,
        });
        return match;
      }
      references++;
      const set = env[name];
      if (fallback !== undefined) return set === undefined || set === '' ? fallback : set;
      if (set !== undefined) return set;
      unset.push(name);
      return '';
    });
    if (references === 0) return { value: expanded };
    if (optional && (unset.length > 0 || expanded === '')) return { value: undefined, omit: true };
    for (const name of unset) {
      problems.push({
        at: path,
        message:
          `${subjectOf(path)} uses \${env:${name}}, which is not set (set ${name}, or give a default: ` +
          `\${env:${name}:-value})`,
      });
    }
    const whole = references === 1 && /^\$\{env:[^}]*\}$/.test(text);
    return { value: whole ? typed(expanded) : expanded };
  };

  const root = visit(tree, []).value as Record<string, unknown>;
  return { value: root, problems, warnings };
}

/** `4318` -> 4318 and `true` -> true, but only when nothing is lost (`0123`, `1e3` stay text). */
function typed(text: string): unknown {
  if (text === 'true') return true;
  if (text === 'false') return false;
  const number = Number(text);
  if (text.trim() !== '' && Number.isFinite(number) && String(number) === text) return number;
  return text;
}

function isOptionalKey(path: YamlPath): boolean {
  return OPTIONAL_KEYS.some(
    (pattern) =>
      pattern.length === path.length &&
      pattern.every((segment, index) =>
        typeof segment === 'function' ? segment(path[index]!) : segment === '*' || segment === path[index],
      ),
  );
}
