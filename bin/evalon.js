#!/usr/bin/env node
// The `evalon` command. A published package runs the compiled CLI from dist/; a checkout of the
// repository, where dist/ may not be built, runs the TypeScript sources (Node >= 22.18 strips types).
import { existsSync } from 'node:fs';

const compiled = new URL('../dist/collector/cli/main.js', import.meta.url);
const source = new URL('../collector/cli/main.ts', import.meta.url);
const { main } = await import(existsSync(compiled) ? compiled.href : source.href);
process.exitCode = await main(process.argv.slice(2));
