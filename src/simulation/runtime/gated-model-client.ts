/**
 * The run's model client: every call goes through the completion gate, keyed by a hash of the
 * request, so it is recorded with its reply and can be replayed offline in order.
 */
import type { ModelClient } from '../../judge/model-client.ts';
import { requestKey, type CompletionGate } from './completion-gate.ts';

export function gatedModelClient(gate: CompletionGate, inner: ModelClient): ModelClient {
  return {
    defaultModel: inner.defaultModel,
    createMessage: (request) => gate.run('model', requestKey(request), () => inner.createMessage(request), true),
  };
}

/** A model client for replays: any call that reaches it was not recorded. */
export function offlineModelClient(defaultModel = 'replay'): ModelClient {
  return {
    defaultModel,
    createMessage: () =>
      Promise.reject(new Error('model: offline replay has no recorded reply for this request (record the run again)')),
  };
}
