/**
 * The files of every `tls` mapping under `receivers`, `exporters` and `extensions` (evaluator
 * properties are left alone: a `tls` key there is the evaluator's): relative paths are resolved
 * against the file that wrote them, as every path in the configuration is, and each file is checked
 * (it exists, it is readable, it holds a PEM certificate or key, the key is the certificate's) so
 * that `evalon validate` reports it with its YAML path. The components read the files again at
 * startup (security/tls-files.ts).
 */
import { isAbsolute, resolve } from 'node:path';
import type { Finding } from '../../src/config/config-problem.ts';
import { isRecord, type YamlPath } from '../../src/config/yaml-path.ts';
import { TLS_FILE_KEYS } from '../security/tls-config.ts';
import { checkKeyMatches, PEM_KIND_OF_KEY, readPemFile, TlsFileError } from '../security/tls-files.ts';

const SECTIONS = ['receivers', 'exporters', 'extensions'];

interface TlsMapping {
  path: YamlPath;
  tls: Record<string, unknown>;
}

function findTlsMappings(tree: Record<string, unknown>): TlsMapping[] {
  const found: TlsMapping[] = [];
  const visit = (value: unknown, path: YamlPath) => {
    if (!isRecord(value)) return;
    for (const [key, child] of Object.entries(value)) {
      if (key === 'tls' && isRecord(child)) found.push({ path: [...path, key], tls: child });
      else visit(child, [...path, key]);
    }
  };
  for (const section of SECTIONS) visit(tree[section], [section]);
  return found;
}

/** Makes every relative TLS file path absolute, in place; `baseOf` is the directory of the file that wrote a path. */
export function resolveTlsPaths(tree: Record<string, unknown>, baseOf: (path: YamlPath) => string): void {
  for (const { path, tls } of findTlsMappings(tree)) {
    for (const key of TLS_FILE_KEYS) {
      const file = tls[key];
      if (typeof file === 'string' && file.trim() !== '' && !isAbsolute(file))
        tls[key] = resolve(baseOf([...path, key]), file);
    }
  }
}

/** A finding for each TLS file that cannot be used. */
export function checkTlsFiles(tree: Record<string, unknown>): Finding[] {
  const findings: Finding[] = [];
  for (const { path, tls } of findTlsMappings(tree)) {
    const read: Record<string, Buffer> = {};
    for (const key of TLS_FILE_KEYS) {
      const file = tls[key];
      if (typeof file !== 'string' || file.trim() === '') continue; // the schema reports it
      try {
        read[key] = readPemFile(path.join('::'), key, file, PEM_KIND_OF_KEY[key]!);
      } catch (error) {
        if (!(error instanceof TlsFileError)) throw error;
        findings.push({ at: [...path, key], message: `${key} ${error.file} ${error.reason}`, point: 'value' });
      }
    }
    if (read.cert_file && read.key_file) {
      try {
        checkKeyMatches(path.join('::'), read.cert_file, read.key_file, String(tls.key_file));
      } catch (error) {
        if (!(error instanceof TlsFileError)) throw error;
        findings.push({ at: [...path, 'key_file'], message: `key_file ${error.file} ${error.reason}`, point: 'value' });
      }
    }
  }
  return findings;
}
