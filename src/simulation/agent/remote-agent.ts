/**
 * A remote agent: any server speaking `POST <endpoint>/v1/step` (protocol version "1"). The
 * evaluator owns the history, so the server is stateless. 429, 502, 503 and 529 are retried up to
 * 3 times after 1 s, 2 s and 4 s (the base is configurable); any other error fails the run with
 * the status and the body.
 */
import type { Agent, HistoryEntry, SimulationEvent } from './agent.ts';
import { decodeStepResponse, encodeStepRequest } from './remote-protocol.ts';

export const RETRYABLE_STATUSES: readonly number[] = [429, 502, 503, 529];
export const DEFAULT_REMOTE_RETRIES = 3;
export const DEFAULT_BACKOFF_BASE_MS = 1000;
export const DEFAULT_REMOTE_TIMEOUT_MS = 120_000;

export interface RemoteAgentOptions {
  /** Base URL; `/v1/step` is appended. */
  endpoint: string;
  /** The evaluated participant's name (messages are sent under it). */
  agentName?: string;
  maxRetries?: number;
  /** First backoff in milliseconds; attempt n waits base × 2^n. */
  backoffBaseMs?: number;
  timeoutMs?: number;
  fetch?: typeof fetch;
  sleep?: (ms: number) => Promise<void>;
}

/** The remote agent answered with an error, an unreadable body, or could not be reached. */
export class RemoteAgentError extends Error {
  readonly endpoint: string;
  readonly status?: number;
  readonly body?: string;
  constructor(endpoint: string, message: string, options: { status?: number; body?: string; cause?: unknown } = {}) {
    super(`remote agent ${endpoint}: ${message}`, options.cause !== undefined ? { cause: options.cause } : {});
    this.name = 'RemoteAgentError';
    this.endpoint = endpoint;
    if (options.status !== undefined) this.status = options.status;
    if (options.body !== undefined) this.body = options.body;
  }
}

/** Whether a status is retried (a function, never a message match). */
export function isRetryableStatus(status: number): boolean {
  return RETRYABLE_STATUSES.includes(status);
}

export function stepUrl(endpoint: string): string {
  return `${endpoint.replace(/\/+$/, '')}/v1/step`;
}

export function createRemoteAgent(options: RemoteAgentOptions): Agent {
  const url = stepUrl(options.endpoint);
  const agentName = options.agentName ?? 'agent';
  const maxRetries = options.maxRetries ?? DEFAULT_REMOTE_RETRIES;
  const base = options.backoffBaseMs ?? DEFAULT_BACKOFF_BASE_MS;
  const doFetch = options.fetch ?? fetch;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));

  return {
    replayable: true,
    async step(history: readonly HistoryEntry[], events: readonly SimulationEvent[], respondIn: string) {
      const body = JSON.stringify(encodeStepRequest(history, events, respondIn));
      for (let attempt = 0; ; attempt++) {
        let response: Response;
        try {
          response = await doFetch(url, {
            method: 'POST',
            headers: { 'content-type': 'application/json', accept: 'application/json' },
            body,
            signal: AbortSignal.timeout(options.timeoutMs ?? DEFAULT_REMOTE_TIMEOUT_MS),
          });
        } catch (error) {
          const code = (error as { cause?: { code?: string } }).cause?.code;
          throw new RemoteAgentError(
            options.endpoint,
            `cannot reach ${url}${code ? ` (${code})` : ''} (is the agent server running?)`,
            { cause: error },
          );
        }
        const text = await response.text();
        if (response.ok) {
          let parsed: unknown;
          try {
            parsed = JSON.parse(text);
          } catch (error) {
            throw new RemoteAgentError(options.endpoint, `response is not JSON\nBody: ${text}`, {
              status: response.status,
              body: text,
              cause: error,
            });
          }
          try {
            return decodeStepResponse(parsed, agentName);
          } catch (error) {
            throw new RemoteAgentError(
              options.endpoint,
              `response is not a valid step response (${(error as Error).message})\nBody: ${text}`,
              { status: response.status, body: text, cause: error },
            );
          }
        }
        if (isRetryableStatus(response.status) && attempt < maxRetries) {
          await sleep(base * 2 ** attempt);
          continue;
        }
        const retried = isRetryableStatus(response.status) ? ` after ${attempt} retries` : '';
        throw new RemoteAgentError(options.endpoint, `HTTP ${response.status}${retried}: ${text}`, {
          status: response.status,
          body: text,
        });
      }
    },
  };
}
