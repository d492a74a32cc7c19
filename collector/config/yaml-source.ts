/**
 * Reading one configuration file, and placing a YAML path back in the files it came from so
 * every problem can say `file:line:column`. Positions come from the `yaml` package's document
 * tree (its `LineCounter`); values are plain JS from `toJS()`.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { LineCounter, isAlias, isMap, isScalar, isSeq, parseDocument, type Document, type Node } from 'yaml';
import type { ConfigProblem } from './config-error.ts';
import type { YamlPath } from './yaml-path.ts';

const MAX_ALIAS_COUNT = 100;

export interface YamlSource {
  /** The file as the caller named it (what messages show). */
  file: string;
  absolutePath: string;
  document: Document;
  lineCounter: LineCounter;
  /** The document as plain data; `{}` for an empty file. */
  value: Record<string, unknown>;
}

export interface SourcePosition {
  file: string;
  line?: number;
  column?: number;
}

/** Reads and parses one file; a file that cannot be read or parsed yields problems instead. */
export function readYamlSource(file: string): { source?: YamlSource; problems: ConfigProblem[] } {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'file not found' : (error as Error).message;
    return { problems: [{ path: '', file, message: `cannot read the configuration file: ${reason}` }] };
  }
  const lineCounter = new LineCounter();
  const document = parseDocument(text, { lineCounter, merge: true, prettyErrors: false, uniqueKeys: true });
  if (document.errors.length > 0) {
    return {
      problems: document.errors.map((error) => {
        const { line, col } = lineCounter.linePos(error.pos[0]);
        const message = error.message.split('\n')[0] ?? error.message;
        return { path: '', file, line, column: col, message: `YAML syntax error: ${message}` };
      }),
    };
  }
  let value: unknown;
  try {
    value = document.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
  } catch (error) {
    return { problems: [{ path: '', file, message: `cannot read the YAML: ${(error as Error).message}` }] };
  }
  if (value === null || value === undefined) value = {};
  if (typeof value !== 'object' || Array.isArray(value)) {
    const start = document.contents?.range[0] ?? 0;
    const { line, col } = lineCounter.linePos(start);
    return {
      problems: [
        { path: '', file, line, column: col, message: 'the file must hold a mapping (receivers, processors, …)' },
      ],
    };
  }
  return {
    source: { file, absolutePath: resolve(file), document, lineCounter, value: value as Record<string, unknown> },
    problems: [],
  };
}

/**
 * Where the value at `path` was written: the last file that has it (later files override
 * earlier ones), else the nearest enclosing key that some file has, so a missing key points
 * at the mapping it is missing from.
 */
export function locate(sources: readonly YamlSource[], path: YamlPath): SourcePosition | undefined {
  for (let length = path.length; length > 0; length--) {
    const prefix = path.slice(0, length);
    for (let index = sources.length - 1; index >= 0; index--) {
      const source = sources[index]!;
      const offset = offsetOf(source.document, prefix);
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
export function sourceOf(sources: readonly YamlSource[], path: YamlPath): YamlSource | undefined {
  for (let index = sources.length - 1; index >= 0; index--) {
    if (offsetOf(sources[index]!.document, path) !== undefined) return sources[index];
  }
  return undefined;
}

/** Offset of the key (or list item) at `path`, following aliases and `<<` merge keys. */
function offsetOf(document: Document, path: YamlPath): number | undefined {
  let node: unknown = document.contents;
  let offset: number | undefined;
  for (const segment of path) {
    const step = child(document, node, segment);
    if (!step) return undefined;
    node = step.value;
    offset = step.offset;
  }
  return offset;
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
