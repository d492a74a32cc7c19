/**
 * The public surface: every entry of `package.json` `exports`, with the module that declares each
 * name it exports. One name means one thing across all entries (two entries may export it only if
 * both re-export the same declaration), and the optional entries stay narrow: what a user calls,
 * implements or annotates, not Evalon's internals.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { publicNames } from './helpers/public-exports.ts';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
/** Raise only for a name a user needs: an internal belongs behind a relative import. */
const MAX_NAMES: Record<string, number> = { 'evalon/simulation': 25, 'evalon/judge': 25 };

const names = publicNames(REPO);

describe('the public entries', () => {
  it('give each exported name one declaration across all entries', () => {
    const byName = new Map<string, Set<string>>();
    for (const { name, entry, declaredIn } of names) {
      const where = byName.get(name) ?? new Set();
      where.add(`${declaredIn} (via ${entry})`);
      byName.set(name, where);
    }
    const conflicts = [...byName]
      .filter(([, where]) => new Set([...where].map((text) => text.split(' (via ')[0])).size > 1)
      .map(([name, where]) => `${name}: ${[...where].sort().join(' | ')}`);
    expect(conflicts).toEqual([]);
  });

  it.each(Object.entries(MAX_NAMES))('keep %s to at most %i names', (entry, max) => {
    const exported = names.filter((name) => name.entry === entry).map((name) => name.name);
    expect(exported.length).toBeGreaterThan(0);
    expect(exported.length, exported.sort().join(', ')).toBeLessThanOrEqual(max);
  });

  it('keep the record types of the ledger under their names, from the one records module', () => {
    for (const name of ['InteractionRecord', 'TranscriptEntry', 'Message', 'ToolCall', 'EvaluationRecord']) {
      const declared = new Set(names.filter((entry) => entry.name === name).map((entry) => entry.declaredIn));
      expect([...declared], name).toEqual(['src/model/records.ts']);
    }
  });

  it('keep the root entry to records, the evaluator API and invokeAgent (no register, which starts the SDK)', () => {
    const root = names.filter((name) => name.entry === 'evalon').map((name) => name.name);
    expect(root).toEqual(expect.arrayContaining(['defineEvaluator', 'effects', 'Evaluation', 'invokeAgent']));
    expect(root).not.toContain('register');
  });
});
