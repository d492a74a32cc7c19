/**
 * The release workflow (docs/packaging.md, "Publish"), which cannot run here: it publishes on `v*` tags
 * only, with `npm ci && npm test && npm publish` authenticated by the NPM_TOKEN secret, and its
 * tag check (run here with bash) refuses a tag that does not name package.json's version.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

const REPO = fileURLToPath(new URL('../../', import.meta.url));

interface Step {
  name?: string;
  uses?: string;
  run?: string;
  with?: Record<string, unknown>;
  env?: Record<string, string>;
}
const workflow = parse(readFileSync(join(REPO, '.github/workflows/release.yml'), 'utf8')) as {
  on: { push: { tags?: string[]; branches?: string[] } };
  jobs: Record<string, { steps: Step[] }>;
};
const steps = Object.values(workflow.jobs).flatMap((job) => job.steps);
const version = (JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { version: string }).version;

function tagCheck(tag: string): { code: number; distTag: string; output: string } {
  const script = steps.find((step) => step.name?.startsWith('Check that the tag'))!.run!;
  const dir = mkdtempSync(join(tmpdir(), 'evalon-release-'));
  const githubEnv = join(dir, 'env');
  try {
    const output = execFileSync('bash', ['-e', '-c', script], {
      cwd: REPO,
      env: { ...process.env, GITHUB_REF_NAME: tag, GITHUB_ENV: githubEnv },
      encoding: 'utf8',
      stdio: 'pipe',
    });
    return { code: 0, distTag: readFileSync(githubEnv, 'utf8').trim(), output };
  } catch (error) {
    const failed = error as { status: number; stdout: string };
    return { code: failed.status, distTag: '', output: failed.stdout };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('the release workflow', () => {
  it('runs on version tags only', () => {
    expect(workflow.on).toEqual({ push: { tags: ['v*'] } });
  });

  it('tests, then publishes with the NPM_TOKEN secret to the npm registry', () => {
    const setup = steps.find((step) => step.uses?.startsWith('actions/setup-node@'));
    expect(setup?.with).toMatchObject({ 'registry-url': 'https://registry.npmjs.org', 'node-version': 24 });
    const publish = steps.find((step) => step.run?.includes('npm publish'))!;
    expect(publish.run).toMatch(/^npm ci && npm test && npm publish\b/);
    expect(publish.env).toEqual({ NODE_AUTH_TOKEN: '${{ secrets.NPM_TOKEN }}' });
  });

  it('refuses a tag that does not name the version in package.json', () => {
    expect(tagCheck(`v${version}`)).toMatchObject({ code: 0, distTag: 'NPM_DIST_TAG=latest' });
    const mismatch = tagCheck('v999.0.0');
    expect(mismatch.code).not.toBe(0);
    expect(mismatch.output).toContain(`does not match package.json version ${version}`);
  });
});
