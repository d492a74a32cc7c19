/**
 * The root `evalon` entry is light: importing it (to define an evaluator, or to call `invokeAgent`
 * in an application that sets up OpenTelemetry itself) loads `@opentelemetry/api` but not the
 * OpenTelemetry SDK, which only `evalon/instrumentation` and `evalon/register` start. The packed
 * package is checked the same way in pack.test.ts.
 */
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { modulesLoadedBy, packagesIn } from './helpers/loaded-modules.ts';

const REPO = new URL('../../', import.meta.url);
const source = (path: string) => pathToFileURL(new URL(path, REPO).pathname).href;

describe('the root entry', () => {
  it('loads no OpenTelemetry SDK package, only the API', async () => {
    const packages = packagesIn(await modulesLoadedBy(source('src/index.ts'), REPO.pathname));
    expect(packages).toContain('@opentelemetry/api');
    expect(packages).not.toContain('@opentelemetry/sdk-node');
    expect(packages.filter((name) => name.startsWith('@opentelemetry/') && name !== '@opentelemetry/api')).toEqual([]);
  });

  it(
    'is told apart from evalon/instrumentation, which ' + 'does load the SDK (the check sees what it looks for)',
    async () => {
      const packages = packagesIn(await modulesLoadedBy(source('src/instrumentation/index.ts'), REPO.pathname));
      expect(packages).toContain('@opentelemetry/sdk-node');
    },
  );
});
