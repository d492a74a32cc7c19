/**
 * Which modules a fresh Node process resolves when it imports one module: a `resolve` hook records
 * every URL, so a test can check that an entry does not pull in a heavy dependency.
 */
import { spawn } from 'node:child_process';

/** Records every resolved URL, imports `process.argv[1]`, prints the URLs as JSON. */
const SCRIPT = `
import { registerHooks } from 'node:module';
const resolved = new Set();
registerHooks({
  resolve(specifier, context, nextResolve) {
    const result = nextResolve(specifier, context);
    resolved.add(result.url);
    return result;
  },
});
await import(process.argv[1]);
process.stdout.write(JSON.stringify([...resolved]));
`;

/** The URLs a process resolves while importing `specifier` (a package name, or a file URL) from `cwd`. */
export function modulesLoadedBy(specifier: string, cwd: string): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', SCRIPT, specifier], {
      cwd,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', reject);
    child.once('close', (code) => {
      if (code !== 0) reject(new Error(`importing ${specifier} exited with ${code}:\n${stderr}`));
      else resolve(JSON.parse(stdout) as string[]);
    });
  });
}

/** The npm packages among `urls` (`@opentelemetry/api`, `yaml`…), each once. */
export function packagesIn(urls: readonly string[]): string[] {
  const names = new Set<string>();
  for (const url of urls) {
    const match = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
    if (match) names.add(match[1]);
  }
  return [...names].sort();
}
