/**
 * `evalon/testing`: test kits for evaluators (the seed's `EvaluatorTestKit`, `TestLedgerClient`)
 * and the scripted model that stands in for the Anthropic API (the seed's `TestModelProvider`).
 */
export { EvaluatorTestKit } from './evaluator-test-kit.ts';
export { EvaluatorResult } from './evaluator-test-kit-result.ts';
export { TestLedgerClient, testInteractionRecord } from './test-ledger-client.ts';
export { createScriptedModel } from './scripted-model.ts';
export type { RecordedRequest, ScriptedHandler, ScriptedModel, ScriptedReply, ScriptedToolUse } from './scripted-model.ts';
export { Subject } from '../evaluation/evaluation-context.ts';
