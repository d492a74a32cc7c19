/**
 * What `context.config()` returns: the binding the runtime used for the agent, with the evaluator
 * entry as fallback key by key (without `agents`, `agent-roles` or any default). Getters throw on
 * a missing key or a value of another type, which fails that evaluation, not startup.
 *
 * Values are as YAML wrote them. Where `${env:…}` expansion leaves a string, the number and
 * boolean getters also read numeric text (`"20"`) and `"true"`/`"false"`.
 */
import { ConfigPropertyTypeError, MissingConfigPropertyError } from './errors.ts';

export class EvaluatorConfig {
  readonly #values: Readonly<Record<string, unknown>>;
  readonly #where: string;

  /** `where` names the evaluator in messages (`evaluator reply-length`). */
  constructor(values: Record<string, unknown> = {}, where = 'evaluator') {
    this.#values = Object.freeze(structuredClone(values));
    this.#where = where;
  }

  /** Whether the key is set (to anything but null). */
  has(key: string): boolean {
    const value = this.#lookup(key);
    return value !== undefined && value !== null;
  }

  /** The keys that are set, in the order written. */
  keys(): string[] {
    return Object.keys(this.#values);
  }

  /** A copy of every key and value. */
  toObject(): Record<string, unknown> {
    return structuredClone(this.#values) as Record<string, unknown>;
  }

  /** The value as written, whatever its type. */
  get(key: string): unknown {
    return structuredClone(this.#required(key));
  }

  getString(key: string): string {
    const value = this.#required(key);
    if (typeof value === 'string') return value;
    if (typeof value === 'number' || typeof value === 'boolean') return String(value);
    throw this.#typeError(key, 'a string', value);
  }

  getNumber(key: string): number {
    const value = this.#required(key);
    const number =
      typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : Number.NaN;
    if (Number.isFinite(number)) return number;
    throw this.#typeError(key, 'a number', value);
  }

  getInt(key: string): number {
    const value = this.#required(key);
    const number =
      typeof value === 'number'
        ? value
        : typeof value === 'string' && /^\s*[-+]?\d+\s*$/.test(value)
          ? Number(value)
          : Number.NaN;
    if (Number.isSafeInteger(number)) return number;
    throw this.#typeError(key, 'an integer', value);
  }

  getBoolean(key: string): boolean {
    const value = this.#required(key);
    if (typeof value === 'boolean') return value;
    if (value === 'true') return true;
    if (value === 'false') return false;
    throw this.#typeError(key, 'a boolean', value);
  }

  /** A list of strings; a single string is a list of one. */
  getStringList(key: string): string[] {
    const value = this.#required(key);
    if (typeof value === 'string') return [value];
    if (Array.isArray(value) && value.every((item) => typeof item === 'string')) return [...value];
    throw this.#typeError(key, 'a list of strings', value);
  }

  /** A mapping (for structured properties such as a JSON schema). */
  getObject(key: string): Record<string, unknown> {
    const value = this.#required(key);
    if (typeof value === 'object' && value !== null && !Array.isArray(value))
      return structuredClone(value) as Record<string, unknown>;
    throw this.#typeError(key, 'a mapping', value);
  }

  /** A key as written; else a dotted path into nested mappings (`thresholds.min`). */
  #lookup(key: string): unknown {
    if (Object.hasOwn(this.#values, key)) return this.#values[key];
    if (!key.includes('.')) return undefined;
    let current: unknown = this.#values;
    for (const part of key.split('.')) {
      if (typeof current !== 'object' || current === null || Array.isArray(current) || !Object.hasOwn(current, part))
        return undefined;
      current = (current as Record<string, unknown>)[part];
    }
    return current;
  }

  #required(key: string): unknown {
    const value = this.#lookup(key);
    if (value === undefined || value === null) {
      throw new MissingConfigPropertyError(
        key,
        `${this.#where}: config property "${key}" is not set (set it on the evaluator entry or on the binding in ` +
          'processors::evaluation::evaluators)',
      );
    }
    return value;
  }

  #typeError(key: string, expected: string, value: unknown): ConfigPropertyTypeError {
    const shown = JSON.stringify(value) ?? String(value);
    return new ConfigPropertyTypeError(
      key,
      `${this.#where}: config property "${key}" must be ${expected} (got ` +
        `${shown.length > 80 ? `${shown.slice(0, 79)}…` : shown})`,
    );
  }
}
