/**
 * Reads one recorded conversation and its verdicts from a collector's API: the one place
 * `evalon scenario` talks to the API (through the shared client, `api-client.ts`).
 *
 * - `GET /api/v1/conversations/{id}?agent=ID`: the conversation with its interactions in order;
 *   404 when unknown; 409 `{error, agents}` when several agents have that id and none was given.
 * - `GET /api/v1/conversations/{id}/evaluations?agent=ID&include=interactions`: `{evaluations}`,
 *   the conversation's own verdicts (every revision) and its interactions'; a collector that has
 *   no such route records no conversation verdicts, which is not an error.
 */
import type { ConversationWithInteractions, EvaluationRecord } from '../../src/model/records.ts';
import { type ApiAccess, apiAccess, CommandFailure, getJson } from './api-client.ts';

export interface ConversationRequest {
  api: URL;
  conversationId: string;
  agentId?: string;
  /** The token and CAs the API needs (`--token`, `--ca-file`, else their environment variables). */
  access?: ApiAccess;
  /** The command, for messages. */
  where: string;
}

export interface RecordedConversation {
  conversation: ConversationWithInteractions;
  evaluations: EvaluationRecord[];
}

export async function fetchRecordedConversation(request: ConversationRequest): Promise<RecordedConversation> {
  const { api, conversationId, agentId, where } = request;
  const access = request.access ?? apiAccess({}, where);
  const path = `api/v1/conversations/${encodeURIComponent(conversationId)}`;
  const url = (suffix = '') => {
    const target = new URL(`${path}${suffix}`, api);
    if (agentId !== undefined) target.searchParams.set('agent', agentId);
    return target;
  };
  const of = agentId !== undefined ? ` of agent ${agentId}` : '';

  const conversation = (await getJson(
    url(),
    where,
    (status, body) => {
      if (status === 409) {
        const agents = (body as { agents?: unknown })?.agents;
        const list = Array.isArray(agents) ? agents.map(String).join(', ') : 'several';
        return new CommandFailure(
          `${where}: conversation ${conversationId} belongs to several agents: ${list} (choose one with --agent ID)`,
          2,
        );
      }
      if (status !== 404) return undefined;
      if (noRoute(body))
        return (
          `${where}: the API at ${api.origin} serves no conversations ` +
          '(is it an Evalon collector that records them?)'
        );
      return (
        `${where}: conversation ${conversationId}${of} not found at ${api.origin} ` +
        '(evalon ledger list shows the recorded ones)'
      );
    },
    access,
  )) as ConversationWithInteractions;
  if (!Array.isArray(conversation?.interactions))
    throw new CommandFailure(`${where}: the API at ${api.origin} answered a conversation without interactions`, 1);

  // The agent is known now: a second agent recording the same id in between cannot mix verdicts in.
  const evaluationsUrl = new URL(`${path}/evaluations`, api);
  evaluationsUrl.searchParams.set('agent', conversation.agentId);
  // The header quotes the verdicts of every turn too, not only the conversation's.
  evaluationsUrl.searchParams.set('include', 'interactions');
  const noVerdicts = new CommandFailure(`${where}: the API records no conversation verdicts`, 1);
  const evaluations = (await getJson(
    evaluationsUrl,
    where,
    (status, body) => (status === 404 && noRoute(body) ? noVerdicts : undefined),
    access,
  ).catch((error: unknown) => {
    if (error === noVerdicts) return { evaluations: [] };
    throw error;
  })) as { evaluations?: EvaluationRecord[] };
  return { conversation, evaluations: evaluations.evaluations ?? [] };
}

/** A 404 of the router ("no route for GET …") rather than of an unknown conversation. */
function noRoute(body: unknown): boolean {
  const message = (body as { error?: unknown })?.error;
  return typeof message === 'string' && message.startsWith('no route');
}
