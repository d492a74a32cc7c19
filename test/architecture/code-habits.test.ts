/**
 * Habits the formatter cannot enforce, checked over every TypeScript file in the repository:
 * lines of at most 120 characters (Biome wraps code, not comments or long strings), and source
 * files of at most 400 lines (a file that grows past that holds more than one concept).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const MAX_LINE = 120;
const MAX_SOURCE_LINES = 400;

function trackedTypeScript(): string[] {
  return execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '*.ts'], {
    cwd: ROOT,
    encoding: 'utf8',
  })
    .split('\n')
    .filter((file) => file !== '' && !file.endsWith('.d.ts'));
}

/** A file that holds only types (interfaces, type aliases) may be longer: it has no behaviour to split. */
function typesOnly(text: string): boolean {
  return !/^\s*(export\s+)?(async\s+)?(function|class|const|let)\s/m.test(text);
}

describe('code habits', () => {
  const files = trackedTypeScript().map((file) => ({ file, text: readFileSync(join(ROOT, file), 'utf8') }));

  it('keeps every line to 120 characters', () => {
    const long = files.flatMap(({ file, text }) =>
      text.split('\n').flatMap((line, index) => (line.length > MAX_LINE ? [`${file}:${index + 1}`] : [])),
    );
    expect(long, 'lines over 120 characters (rewrap the comment or split the string)').toEqual([]);
  });

  it('keeps source files to 400 lines, types-only files aside', () => {
    const big = files
      .filter(({ file }) => /^(src|collector|bench)\//.test(file))
      .filter(({ text }) => text.split('\n').length > MAX_SOURCE_LINES && !typesOnly(text))
      .map(({ file, text }) => `${file} (${text.split('\n').length} lines)`);
    expect(big, 'source files over 400 lines (split along a concept)').toEqual([]);
  });
});
