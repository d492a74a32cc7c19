/**
 * Node flags for the child processes tests start with `process.execPath` that open ledgers and
 * their threads: the same flag the test processes run with (vitest.config.ts), for the same reason
 * (collector/cli/runtime-settings.ts). A collector child gets it on its own, from its runtime
 * settings.
 */
import { WASM_WRAPPER_TIERING } from '../../collector/cli/runtime-settings.ts';

export const CHILD_NODE_FLAGS: readonly string[] = [WASM_WRAPPER_TIERING.join('=')];
