/**
 * What an evaluation runs and is recorded with, from the configuration running now: `config()`,
 * the entry's `control-id` and `shadow`, the binding it runs under, and the hash of its effective
 * properties (provenance). Resolved again before every durable step, so later steps see a changed
 * configuration; the hash of one (entry, binding) is computed once per configuration.
 *
 * The hash is SHA-256 over the RFC 8785 canonical JSON of the effective properties (the binding
 * over the entry, reserved keys left out), so it does not depend on key order and changes exactly
 * when a property does (a new rubric, another model). Its first 16 hex digits are kept.
 */
import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';
import type { EvaluationDefaultsConfig, EvaluatorEntryConfig } from '../../config/evalon-config.ts';
import {
  bindingOf,
  describeSource,
  effectiveConfig,
  resolveBinding,
  type AgentIdentity,
} from './binding-resolution.ts';
import { RESERVED_KEYS } from './config.ts';

/** Hex digits of the config hash kept (64 bits: unique among any entry's configurations). */
export const CONFIG_HASH_LENGTH = 16;

export interface RunSettings {
  /** What `context.config()` returns. */
  config: Record<string, unknown>;
  /** The entry's `control-id`. */
  controlId?: string;
  /** Present (true) when the entry is a shadow. */
  shadow?: true;
  /** The binding used (`agents::support-agent`); absent when none matches the agent any more. */
  binding?: string;
  /** The hash of the effective properties; absent when the entry is gone. */
  configHash?: string;
}

export type RunSettingsResolver = (evaluation: { evaluatorId: string } & AgentIdentity) => RunSettings;

/**
 * Settings for an evaluation about to run. An evaluation queued while its binding was enabled
 * keeps that binding's properties even if an override has disabled it since; an evaluator whose
 * entry is gone gets an empty `config()`.
 */
export function createRunSettings(
  evaluators: Record<string, EvaluatorEntryConfig>,
  defaults: EvaluationDefaultsConfig,
): RunSettingsResolver {
  const hashes = new Map<string, string>();
  return (evaluation) => {
    const entry = evaluators[evaluation.evaluatorId];
    if (!entry) return { config: {} };
    const { source } = resolveBinding(evaluation.evaluatorId, entry, defaults, evaluation);
    const binding = bindingOf(entry, source);
    const config = effectiveConfig(entry, binding);
    const where = binding ? describeSource(source) : undefined;
    const key = `${evaluation.evaluatorId}\u0000${where ?? ''}`;
    let configHash = hashes.get(key);
    if (configHash === undefined) {
      configHash = configHashOf(config);
      hashes.set(key, configHash);
    }
    return {
      config,
      ...(entry.controlId !== undefined ? { controlId: entry.controlId } : {}),
      ...(entry.shadow === true ? { shadow: true as const } : {}),
      ...(where !== undefined ? { binding: where } : {}),
      configHash,
    };
  };
}

/** The hash of the properties in `config` (reserved keys left out), whatever their key order. */
export function configHashOf(config: Record<string, unknown>): string {
  const reserved: readonly string[] = RESERVED_KEYS;
  const properties = Object.fromEntries(Object.entries(config).filter(([key]) => !reserved.includes(key)));
  let canonical: string;
  try {
    canonical = canonicalize(properties) ?? '{}';
  } catch {
    // A value JSON cannot hold (a YAML .inf): the hash is still stable for it.
    canonical = String(JSON.stringify(properties));
  }
  return createHash('sha256').update(canonical).digest('hex').slice(0, CONFIG_HASH_LENGTH);
}
