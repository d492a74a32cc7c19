/**
 * Node flags the test processes run with (vitest.config.ts), and the child processes tests start
 * with `process.execPath` that open ledgers and their threads: calls from WebAssembly into
 * JavaScript keep V8's generic wrapper (collector/cli/runtime-settings.ts says why). A collector
 * child gets it on its own, from its runtime settings.
 */
import { WASM_WRAPPER_TIERING } from '../../collector/cli/runtime-settings.ts';

export const TEST_NODE_FLAGS: readonly string[] = [WASM_WRAPPER_TIERING.join('=')];
