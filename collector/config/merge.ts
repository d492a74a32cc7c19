/**
 * Merging several `--config` files: later files override earlier ones key by key. Mappings merge
 * recursively; lists and scalars replace. An empty value (`key:` or `~`) over a mapping changes
 * nothing, so a half-written override never wipes what the shared file set. A mapping that is a
 * choice of one (the ledger: `sqlite` or `postgres`) is replaced whole, so an override can switch.
 */
import { isRecord } from '../../src/config/yaml-path.ts';

/** Mappings whose later value replaces the earlier one instead of merging into it. */
const REPLACED_WHOLE: ReadonlyArray<readonly string[]> = [['processors', 'evaluation', 'ledger']];

export function mergeConfigs(layers: ReadonlyArray<Record<string, unknown>>): Record<string, unknown> {
  let merged: Record<string, unknown> = {};
  for (const layer of layers) merged = mergeMappings(merged, layer, []);
  return merged;
}

function mergeMappings(
  base: Record<string, unknown>,
  over: Record<string, unknown>,
  path: string[],
): Record<string, unknown> {
  const result: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(over)) {
    result[key] = mergeValues(result[key], value, [...path, key]);
  }
  return result;
}

function mergeValues(base: unknown, over: unknown, path: string[]): unknown {
  if (isRecord(base) && (over === null || over === undefined)) return base;
  if (isRecord(base) && isRecord(over) && !replacedWhole(path)) return mergeMappings(base, over, path);
  return over;
}

function replacedWhole(path: readonly string[]): boolean {
  return REPLACED_WHOLE.some(
    (whole) => whole.length === path.length && whole.every((key, index) => key === path[index]),
  );
}
