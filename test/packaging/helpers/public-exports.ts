/**
 * The names each public entry of the package exports, each with the source module that declares
 * it: the entry's re-exports are followed (`export { X } from`, `export *`, an import exported
 * again) down to the `export function / class / const / interface / type` that declares the name.
 * Parsed with swc, so types count as much as values.
 */
import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { parseSync } from '@swc/core';

export interface PublicName {
  entry: string;
  name: string;
  /** The declaring module, relative to the repository (`src/model/records.ts`). */
  declaredIn: string;
}

interface Node {
  type: string;
  [key: string]: unknown;
}
type Identifier = { value: string };
interface Specifier {
  type: string;
  orig?: Identifier;
  local?: Identifier;
  exported?: Identifier;
  imported?: Identifier;
}

/** Every entry of `exports` with its source module: `./dist/src/judge/index.js` → `src/judge/index.ts`. */
export function publicEntries(repo: string): Array<{ entry: string; source: string }> {
  const manifest = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')) as {
    name: string;
    exports: Record<string, string | { default: string }>;
  };
  return Object.entries(manifest.exports)
    .filter(([, target]) => typeof target !== 'string')
    .map(([subpath, target]) => ({
      entry: subpath === '.' ? manifest.name : `${manifest.name}/${subpath.slice(2)}`,
      source: join(repo, (target as { default: string }).default.replace(/^\.\/dist\//, '').replace(/\.js$/, '.ts')),
    }));
}

export function publicNames(repo: string): PublicName[] {
  const modules = new Map<string, Node[]>();
  const bodyOf = (file: string): Node[] => {
    let body = modules.get(file);
    if (!body) {
      body = parseSync(readFileSync(file, 'utf8'), { syntax: 'typescript' }).body as unknown as Node[];
      modules.set(file, body);
    }
    return body;
  };
  const target = (from: string, source: unknown) => resolve(dirname(from), (source as Identifier).value);

  /** The names `file` exports (through `export *` too). */
  const exportedNames = (file: string, seen = new Set<string>()): string[] => {
    if (seen.has(file)) return [];
    seen.add(file);
    const names: string[] = [];
    for (const node of bodyOf(file)) {
      if (node.type === 'ExportDeclaration') names.push(...declaredNames(node.declaration as Node));
      if (node.type === 'ExportNamedDeclaration') {
        for (const spec of node.specifiers as Specifier[]) names.push((spec.exported ?? spec.orig)!.value);
      }
      if (node.type === 'ExportAllDeclaration') names.push(...exportedNames(target(file, node.source), seen));
    }
    return names;
  };

  /** The module declaring what `file` exports as `name`. */
  const declaring = (file: string, name: string, depth = 0): string => {
    if (depth > 20) throw new Error(`${file}: re-exports of ${name} go round in a cycle`);
    const body = bodyOf(file);
    const local = (localName: string): string => {
      for (const node of body) {
        if (node.type !== 'ImportDeclaration') continue;
        for (const spec of node.specifiers as Specifier[]) {
          if (spec.local?.value === localName)
            return declaring(target(file, node.source), (spec.imported ?? spec.local).value, depth + 1);
        }
      }
      if (body.some((node) => declaredNames(node).includes(localName))) return file;
      throw new Error(`${file}: ${localName} is exported but neither imported nor declared`);
    };
    for (const node of body) {
      if (node.type === 'ExportDeclaration' && declaredNames(node.declaration as Node).includes(name)) return file;
      if (node.type !== 'ExportNamedDeclaration') continue;
      for (const spec of node.specifiers as Specifier[]) {
        if ((spec.exported ?? spec.orig)!.value !== name) continue;
        return node.source
          ? declaring(target(file, node.source), spec.orig!.value, depth + 1)
          : local(spec.orig!.value);
      }
    }
    for (const node of body) {
      if (node.type === 'ExportAllDeclaration' && exportedNames(target(file, node.source)).includes(name))
        return declaring(target(file, node.source), name, depth + 1);
    }
    throw new Error(`${file} does not export ${name}`);
  };

  return publicEntries(repo).flatMap(({ entry, source }) =>
    [...new Set(exportedNames(source))].map((name) => ({
      entry,
      name,
      declaredIn: relative(repo, declaring(source, name)).split('\\').join('/'),
    })),
  );
}

/** The names a top-level statement or declaration declares. */
function declaredNames(node: Node | undefined): string[] {
  if (!node) return [];
  switch (node.type) {
    case 'FunctionDeclaration':
    case 'ClassDeclaration':
      return [(node.identifier as Identifier).value];
    case 'TsInterfaceDeclaration':
    case 'TsTypeAliasDeclaration':
    case 'TsEnumDeclaration':
      return [(node.id as Identifier).value];
    case 'VariableDeclaration':
      return (node.declarations as Array<{ id: Node }>).flatMap((declarator) =>
        declarator.id.type === 'Identifier' ? [(declarator.id as unknown as Identifier).value] : [],
      );
    default:
      return [];
  }
}
