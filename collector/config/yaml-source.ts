/**
 * Reading one configuration file into the shared kit's `YamlSource` (which places a YAML path back
 * in the file as `file:line:column`), with the plain value and the absolute path the loader needs
 * to merge files and resolve relative paths.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { ConfigProblem } from '../../src/config/config-problem.ts';
import { parseYamlSource, type YamlSource } from '../../src/config/yaml-source.ts';

/** Aliases expanded at most this many times: a small file cannot grow into a huge value. */
const MAX_ALIAS_COUNT = 100;

export interface ConfigSource extends YamlSource {
  absolutePath: string;
  /** The document as plain data; `{}` for an empty file. */
  value: Record<string, unknown>;
}

/** Reads and parses one file; a file that cannot be read or parsed yields problems instead. */
export function readYamlSource(file: string): { source?: ConfigSource; problems: ConfigProblem[] } {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'file not found' : (error as Error).message;
    return { problems: [{ path: '', file, message: `cannot read the configuration file: ${reason}` }] };
  }
  const { source, syntaxErrors } = parseYamlSource(text, file);
  if (syntaxErrors.length > 0) {
    return {
      problems: syntaxErrors.map(({ line, column, message }) => ({
        path: '',
        file,
        line,
        column,
        message: `YAML syntax error: ${message}`,
      })),
    };
  }
  let value: unknown;
  try {
    value = source.document.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
  } catch (error) {
    return { problems: [{ path: '', file, message: `cannot read the YAML: ${(error as Error).message}` }] };
  }
  if (value === null || value === undefined) value = {};
  if (typeof value !== 'object' || Array.isArray(value)) {
    const start = source.document.contents?.range?.[0] ?? 0;
    const { line, col } = source.lineCounter.linePos(start);
    return {
      problems: [
        { path: '', file, line, column: col, message: 'the file must hold a mapping (receivers, processors, …)' },
      ],
    };
  }
  return { source: { ...source, absolutePath: resolve(file), value: value as Record<string, unknown> }, problems: [] };
}
