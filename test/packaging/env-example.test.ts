/**
 * `.env.example` lists every environment variable the product reads (docs/packaging.md): each
 * name the shipped code reads from the environment (`process.env.NAME`, `env.NAME`,
 * `env['NAME']`, an `OTEL_*` / `EVALON_*` / `ANTHROPIC_*` name passed as a string) and each
 * `${env:NAME}` of the shipped `otel-config.yaml` has a `NAME=` line, commented out or not.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const SHIPPED_CODE = ['src', 'collector'];

function tsFiles(dir: string): string[] {
  const files: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) files.push(...tsFiles(path));
    else if (name.endsWith('.ts')) files.push(path);
  }
  return files;
}

function variablesRead(): Map<string, string> {
  const found = new Map<string, string>();
  const note = (name: string, where: string) => {
    if (!found.has(name)) found.set(name, where);
  };
  const code = new RegExp(
    /\benv\.([A-Z][A-Z0-9_]+)\b|\benv\[\s*['"]([A-Z][A-Z0-9_]+)['"]\s*\]|/.source +
      /['"`]((?:OTEL|EVALON|ANTHROPIC)_[A-Z0-9_]+)['"`]/.source,
    'g',
  );
  for (const file of SHIPPED_CODE.flatMap((dir) => tsFiles(join(REPO, dir)))) {
    for (const match of readFileSync(file, 'utf8').matchAll(code))
      note(match[1] ?? match[2] ?? match[3], file.slice(REPO.length));
  }
  for (const match of readFileSync(join(REPO, 'otel-config.yaml'), 'utf8').matchAll(
    /\$\{env:([A-Za-z_][A-Za-z0-9_]*)/g,
  )) {
    note(match[1], 'otel-config.yaml');
  }
  return found;
}

describe('.env.example', () => {
  it('lists every environment variable the shipped code and configuration read', () => {
    const listed = new Set(
      [...readFileSync(join(REPO, '.env.example'), 'utf8').matchAll(/^#?\s*([A-Z][A-Z0-9_]*)=/gm)].map(
        (match) => match[1],
      ),
    );
    const read = variablesRead();
    expect(read.size).toBeGreaterThan(10);
    const missing = [...read]
      .filter(([name]) => !listed.has(name))
      .map(([name, where]) => `${name} (read in ${where})`);
    expect(missing).toEqual([]);
  });
});
