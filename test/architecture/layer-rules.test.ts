/**
 * The layer rules of `.dependency-cruiser.cjs` (run by `npm test` through `npm run lint:deps`)
 * catch what they are meant to: a library module importing the collector, an import cycle, the
 * model importing the library, the collector importing the test kits, one ledger store importing
 * the other. Each case is a small tree made in a temporary folder and checked with the project's
 * own configuration; the real tree is checked the same way and must have no violation.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const CONFIG = join(ROOT, '.dependency-cruiser.cjs');
const CLI = join(ROOT, 'node_modules/dependency-cruiser/bin/dependency-cruiser.mjs');
const folders: string[] = [];
afterAll(() => {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

interface Violation {
  rule: { name: string };
  from: string;
  to: string;
}

/** Runs the project's layer check in `cwd` over src/ and collector/ and returns what it reports. */
function cruise(cwd: string): Violation[] {
  let output: string;
  try {
    output = execFileSync(process.execPath, [CLI, 'src', 'collector', '--config', CONFIG, '--output-type', 'json'], {
      cwd,
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
    });
  } catch (error) {
    // Violations make the command exit non-zero; the report is still on stdout.
    output = (error as { stdout: string }).stdout;
  }
  return (JSON.parse(output) as { summary: { violations: Violation[] } }).summary.violations;
}

/** A tree of files (path → source) in a new temporary folder. */
function tree(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'evalon-layers-'));
  folders.push(root);
  // Both folders the check is given must exist.
  for (const [path, source] of Object.entries({ 'src/index.ts': '', 'collector/index.ts': '', ...files })) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), source);
  }
  writeFileSync(join(root, 'package.json'), '{ "type": "module" }\n');
  return root;
}

const ruleNames = (violations: Violation[]) => [...new Set(violations.map((v) => v.rule.name))].sort();

describe('the layer check', () => {
  it('finds no violation in the real tree', () => {
    expect(cruise(ROOT)).toEqual([]);
  });

  it('reports a library module that imports the collector', () => {
    const root = tree({
      'src/judge/judge.ts': "import { log } from '../../collector/logger.ts';\nexport const judge = () => log;\n",
      'collector/logger.ts': 'export const log = 1;\n',
    });
    expect(ruleNames(cruise(root))).toEqual(['library-not-to-collector']);
  });

  it('lets the test kits start a collector, but not the rest of the library import the kits', () => {
    const root = tree({
      'src/testing/kit.ts': "import { start } from '../../collector/service.ts';\nexport const kit = start;\n",
      'src/evaluation/api.ts': "import { kit } from '../testing/kit.ts';\nexport const api = kit;\n",
      'collector/service.ts': 'export const start = 1;\n',
    });
    const violations = cruise(root);
    expect(ruleNames(violations)).toEqual(['library-not-to-testing']);
    expect(violations[0]!.from).toBe('src/evaluation/api.ts');
  });

  it('reports an import cycle', () => {
    const root = tree({
      'src/evaluation/a.ts': "import { b } from './b.ts';\nexport const a = () => b;\n",
      'src/evaluation/b.ts': "import { a } from './a.ts';\nexport const b = () => a;\n",
    });
    expect(ruleNames(cruise(root))).toEqual(['no-circular']);
  });

  it('reports the shared model importing anything else of Evalon, type-only imports included', () => {
    const root = tree({
      'src/model/records.ts': "import type { Judge } from '../judge/judge.ts';\nexport type R = Judge;\n",
      'src/judge/judge.ts': 'export type Judge = string;\n',
    });
    expect(ruleNames(cruise(root))).toEqual(['model-is-the-bottom']);
  });

  it('reports the collector importing the test kits, and one ledger store importing the other', () => {
    const root = tree({
      'collector/api/server.ts': "import { kit } from '../../src/testing/kit.ts';\nexport const s = kit;\n",
      'src/testing/kit.ts': 'export const kit = 1;\n',
      'collector/ledger/postgres/store.ts': "import { codec } from '../sqlite/codec.ts';\nexport const p = codec;\n",
      'collector/ledger/sqlite/codec.ts': 'export const codec = 1;\n',
    });
    expect(ruleNames(cruise(root))).toEqual(['collector-not-to-testing', 'ledger-stores-apart']);
  });
});
