/**
 * A parsed YAML file that remembers where everything was written, so each problem can say
 * `file:line:column`. Positions come from the `yaml` package's document tree (its `LineCounter`),
 * following aliases and `<<` merge keys to the text that wrote a value.
 */
import { isAlias, isMap, isScalar, isSeq, LineCounter, parseDocument, type Document, type Node } from 'yaml';
import type { YamlPath } from './yaml-path.ts';

export interface YamlSource {
  /** The file as the caller named it (what messages show). */
  file: string;
  document: Document;
  lineCounter: LineCounter;
}

export interface SourcePosition {
  file: string;
  /** 1-based. */
  line?: number;
  /** 1-based. */
  column?: number;
}

export interface YamlSyntaxError {
  line: number;
  column: number;
  /** The parser's message, first line only. */
  message: string;
}

/**
 * Where a problem at a path points: the key (the collector configuration, whose messages start
 * with the key) or the value (a scenario file's "expected …, got …").
 */
export type PointAt = 'key' | 'value';

/** Parses YAML text; duplicate keys are syntax errors, `<<` merges mappings. */
export function parseYamlSource(text: string, file: string): { source: YamlSource; syntaxErrors: YamlSyntaxError[] } {
  const lineCounter = new LineCounter();
  const document = parseDocument(text, { lineCounter, merge: true, prettyErrors: false, uniqueKeys: true });
  const syntaxErrors = document.errors.map((error) => {
    const { line, col } = lineCounter.linePos(error.pos[0]);
    return { line, column: col, message: error.message.split('\n')[0] ?? error.message };
  });
  return { source: { file, document, lineCounter }, syntaxErrors };
}

/**
 * Where the value at `path` was written: the last file that has it (later files override
 * earlier ones), else the nearest enclosing key (or value) that some file has, so a missing key
 * points at the mapping it is missing from.
 */
export function locate(
  sources: readonly YamlSource[],
  path: YamlPath,
  point: PointAt = 'key',
): SourcePosition | undefined {
  // The document itself is a value with no key: only a value can point at it.
  const shortest = point === 'key' ? 1 : 0;
  for (let length = path.length; length >= shortest; length--) {
    const prefix = path.slice(0, length);
    for (let index = sources.length - 1; index >= 0; index--) {
      const source = sources[index]!;
      const offset = offsetOf(source.document, prefix, point);
      if (offset !== undefined) {
        const { line, col } = source.lineCounter.linePos(offset);
        return { file: source.file, line, column: col };
      }
    }
  }
  const last = sources.at(-1);
  return last ? { file: last.file } : undefined;
}

/** The file that supplied the value at `path`, for resolving relative paths written in it. */
export function sourceOf<Source extends YamlSource>(sources: readonly Source[], path: YamlPath): Source | undefined {
  for (let index = sources.length - 1; index >= 0; index--) {
    if (offsetOf(sources[index]!.document, path, 'key') !== undefined) return sources[index];
  }
  return undefined;
}

/** Offset of the key (or list item) at `path`, or of its value. */
function offsetOf(document: Document, path: YamlPath, point: PointAt): number | undefined {
  let node: unknown = document.contents;
  let offset: number | undefined;
  for (const segment of path) {
    const step = child(document, node, segment);
    if (!step) return undefined;
    node = step.value;
    offset = step.offset;
  }
  if (point === 'key') return path.length > 0 ? offset : undefined;
  return startOf(node) ?? offset;
}

function startOf(node: unknown): number | undefined {
  return node && typeof node === 'object' && 'range' in node ? (node as Node).range?.[0] : undefined;
}

function child(
  document: Document,
  parent: unknown,
  segment: string | number,
): { value: unknown; offset: number } | undefined {
  const node = isAlias(parent) ? parent.resolve(document) : parent;
  if (isSeq(node)) {
    if (typeof segment !== 'number') return undefined;
    const item = node.items[segment] as Node | undefined;
    return item?.range ? { value: item, offset: item.range[0] } : undefined;
  }
  if (!isMap(node)) return undefined;
  const merged: unknown[] = [];
  for (const pair of node.items) {
    if (!isScalar(pair.key)) continue;
    if (typeof pair.key.value === 'symbol' || pair.key.source === '<<') {
      merged.push(...(isSeq(pair.value) ? pair.value.items : [pair.value]));
    } else if (String(pair.key.value) === String(segment)) {
      return { value: pair.value, offset: pair.key.range?.[0] ?? 0 };
    }
  }
  // Keys written in the mapping win over merged ones, as in the parsed value.
  for (const source of merged) {
    const step = child(document, source, segment);
    if (step) return step;
  }
  return undefined;
}
