/** What a package holds: its files, and the modules its compiled files import. */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** Every file under `dir`, recursively. */
export function filesUnder(dir: string): string[] {
  const files: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) files.push(...filesUnder(path));
    else files.push(path);
  }
  return files;
}

/** Module specifiers of the static imports, re-exports and string-literal dynamic imports of a compiled file. */
export function importedSpecifiers(code: string): string[] {
  const specifiers: string[] = [];
  for (const match of code.matchAll(
    new RegExp(
      /^\s*(?:import|export)\b[^'";]*?\bfrom\s*['"]([^'"]+)['"]|/.source +
        /^\s*import\s*['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]\s*\)/.source,
      'gm',
    ),
  )) {
    specifiers.push(match[1] ?? match[2] ?? match[3]);
  }
  return specifiers;
}

export function packageNameOf(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}
