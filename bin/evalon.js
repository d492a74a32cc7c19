#!/usr/bin/env node
// The `evalon` command. The published package holds only the compiled CLI (dist/); a checkout of
// the repository runs the TypeScript sources (Node >= 22.18 strips types), so a dist/ left over
// from `npm pack` never shadows the code being edited.
import { existsSync } from 'node:fs';

const source = new URL('../collector/cli/main.ts', import.meta.url);
const compiled = new URL('../dist/collector/cli/main.js', import.meta.url);
const { main, restartWithRuntimeSettings } = await import(existsSync(source) ? source.href : compiled.href);
// `evalon collector` starts again in place with its runtime settings (collector/cli/runtime-settings.ts).
restartWithRuntimeSettings(process.argv.slice(2));
process.exitCode = await main(process.argv.slice(2));
