/**
 * Unknown keys on an evaluator entry or a binding are properties of the evaluator, so a
 * misspelled reserved key would silently do nothing: `sampling_ratio: 0.1` would be
 * a property and the binding would sample everything. Such keys get a warning naming the key
 * that was probably meant.
 */
import type { Finding } from '../../src/config/config-problem.ts';
import { closestKey, normalizeKey } from '../../src/config/key-suggestions.ts';
import { isRecord, subjectOf, type YamlPath } from '../../src/config/yaml-path.ts';
import { RESERVED_KEYS } from '../processor/evaluation/config.ts';

/** Words people use for a reserved key that no edit distance would find. */
const SYNONYMS: Readonly<Record<string, string>> = {
  disabled: 'enabled',
  disable: 'enabled',
  roles: 'agent-roles',
  samplerate: 'sampling-ratio',
  onfailure: 'trigger-on-failure',
};
const ENTRY_ONLY = ['control-id', 'version', 'shadow', 'agents', 'agent-roles'];
const BINDING_ONLY = ['trigger', 'sampling-ratio', 'trigger-on-failure'];

export function reservedKeyWarnings(config: Record<string, unknown>): Finding[] {
  const warnings: Finding[] = [];
  const evaluation = record(record(config.processors).evaluation);
  const base: YamlPath = ['processors', 'evaluation', 'evaluators'];
  for (const [id, entry] of Object.entries(record(evaluation.evaluators))) {
    if (!isRecord(entry)) continue;
    checkKeys(entry, [...base, id], 'entry', warnings);
    for (const group of ['agents', 'agent-roles']) {
      for (const [name, binding] of Object.entries(record(entry[group]))) {
        if (isRecord(binding)) checkKeys(binding, [...base, id, group, name], 'binding', warnings);
      }
    }
  }
  return warnings;
}

function checkKeys(
  mapping: Record<string, unknown>,
  path: YamlPath,
  level: 'entry' | 'binding',
  warnings: Finding[],
): void {
  const reserved: readonly string[] = RESERVED_KEYS;
  for (const key of Object.keys(mapping)) {
    if (reserved.includes(key)) continue;
    const meant = SYNONYMS[normalizeKey(key)] ?? closestKey(key, RESERVED_KEYS);
    if (meant === undefined) continue;
    const at = [...path, key];
    let placement = '';
    if (level === 'entry' && BINDING_ONLY.includes(meant))
      placement = ' It belongs on a binding or under defaults::agent.';
    if (level === 'binding' && ENTRY_ONLY.includes(meant)) placement = ' It belongs on the evaluator entry.';
    warnings.push({
      at,
      message:
        `${subjectOf(at)} is not a reserved key, so it is passed to the evaluator as a property (did you mean ` +
        `${JSON.stringify(meant)}?${placement})`,
    });
  }
}

function record(value: unknown): Record<string, unknown> {
  return isRecord(value) ? value : {};
}
