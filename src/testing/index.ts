/**
 * `evalon/testing`: test kits for evaluators (`EvaluatorTestKit`, `TestLedgerClient`), the
 * integration harness that runs a collector in process (`TestKit`) and the scripted model that
 * stands in for the Anthropic API.
 */
export { EvaluatorTestKit } from './evaluator-test-kit.ts';
export { EvaluatorResult } from './evaluator-test-kit-result.ts';
export { TestLedgerClient, testInteractionRecord } from './test-ledger-client.ts';
export { createScriptedModel, promptTooLongReply } from './scripted-model.ts';
export type {
  RecordedRequest,
  ScriptedHandler,
  ScriptedModel,
  ScriptedReply,
  ScriptedToolUse,
} from './scripted-model.ts';
export { TestKit } from './test-kit.ts';
export type {
  AwaitConversationEvaluationsOptions,
  AwaitEvaluationsOptions,
  TestKitModelProviders,
  TestKitOptions,
  TestKitReply,
} from './test-kit.ts';
export type { TestKitDuration } from './test-kit-config.ts';
export { TestKitError } from './test-kit-error.ts';
export { Subject } from '../evaluation/evaluation-context.ts';
