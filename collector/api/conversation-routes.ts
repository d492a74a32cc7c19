/**
 * The conversation routes of the API: the list, one conversation with its interactions, every
 * revision's evaluations (with `?include=interactions`, then its interactions' own, in turn order:
 * what a conversation's rehearsal quotes), and `POST …/end`, the one route that writes (an end
 * request: the conversation is over now, and is evaluated once its turns on their way have arrived).
 *
 * A conversation is one agent's: `?agent=ID` names it. Left out, the conversation id alone must be
 * unambiguous: unknown is 404, several agents 409 with the list (`agents`).
 */
import type { ConversationStore } from '../ledger/conversation-store.ts';
import type { LedgerRetention } from '../ledger/ledger-retention.ts';
import type { RecordedEvaluations } from '../ledger/recorded-evaluations.ts';
import { parseAgentParameter, parseConversationsQuery, parseEvaluationsParameters } from './conversations-query.ts';
import type { JsonReply, Route } from './router.ts';

/** How long after an end request the conversation may close: turns still on their way arrive first. */
export const DEFAULT_END_GRACE_MS = 2_000;

const error = (status: number, message: string, extra: Record<string, unknown> = {}): JsonReply => ({
  status,
  body: { error: message, ...extra },
});

export function conversationRoutes(options: {
  store: ConversationStore & RecordedEvaluations & Pick<LedgerRetention, 'getPrunedConversation'>;
  now: () => number;
  /** Grace after an end request (the interactions processor's settle window). */
  endGraceMs?: number;
}): Route[] {
  const { store, now } = options;
  const graceMs = options.endGraceMs ?? DEFAULT_END_GRACE_MS;

  /** 410 when the conversation's turns were pruned (its evaluations are still listed). */
  async function gone(conversationId: string, agentId: string): Promise<JsonReply | undefined> {
    const pruned = await store.getPrunedConversation(conversationId, agentId);
    if (!pruned) return undefined;
    return error(
      410,
      `conversation ${conversationId} of agent ${agentId} was pruned at ${pruned.prunedAt} (ledger retention); ` +
        `its evaluations are at /api/v1/conversations/${encodeURIComponent(conversationId)}/evaluations`,
      {
        conversationId,
        agentId,
        revision: pruned.revision,
        lastActivity: pruned.lastActivity,
        prunedAt: pruned.prunedAt,
      },
    );
  }

  /** The agent of the conversation, or the reply that says why there is none. */
  async function agentOf(
    conversationId: string,
    url: URL,
    named = parseAgentParameter(url.searchParams),
  ): Promise<{ agentId: string } | JsonReply> {
    if (named !== undefined) {
      const agents = await store.conversationAgents(conversationId);
      return agents.includes(named)
        ? { agentId: named }
        : error(404, `conversation ${conversationId} of agent ${named} not found`);
    }
    const agents = await store.conversationAgents(conversationId);
    if (agents.length === 1) return { agentId: agents[0] };
    if (agents.length === 0) return error(404, `conversation ${conversationId} not found`);
    return error(
      409,
      `conversation ${conversationId} has several agents: ${agents.join(', ')} (name one with ?agent=ID)`,
      { agents },
    );
  }

  return [
    {
      path: /^\/api\/v1\/conversations$/,
      get: async (_params, url) => ({
        status: 200,
        body: { conversations: await store.listConversations(parseConversationsQuery(url.searchParams, now())) },
      }),
    },
    {
      path: /^\/api\/v1\/conversations\/([^/]+)\/evaluations$/,
      get: async ([conversationId], url) => {
        const parameters = parseEvaluationsParameters(url.searchParams);
        const agent = await agentOf(conversationId, url, parameters.agent);
        if ('status' in agent) return agent;
        const evaluations = await store.getConversationEvaluations(conversationId, agent.agentId);
        if (parameters.interactions) {
          // The latest revision holds every turn (a revision covers the conversation up to its end).
          const conversation = await store.getConversation(conversationId, agent.agentId);
          for (const interactionId of conversation?.interactionIds ?? [])
            evaluations.push(...(await store.getEvaluations(interactionId)));
        }
        return { status: 200, body: { evaluations } };
      },
    },
    {
      path: /^\/api\/v1\/conversations\/([^/]+)\/end$/,
      post: async ([conversationId], url) => {
        const agent = await agentOf(conversationId, url);
        if ('status' in agent) return agent;
        const pruned = await gone(conversationId, agent.agentId);
        if (pruned) return pruned;
        const at = now();
        const conversation = await store.requestConversationEnd({
          conversationId,
          agentId: agent.agentId,
          at: new Date(at).toISOString(),
          dueAt: new Date(at + graceMs).toISOString(),
        });
        if (!conversation) return error(404, `conversation ${conversationId} of agent ${agent.agentId} not found`);
        return {
          status: 202,
          body: {
            conversationId,
            agentId: agent.agentId,
            revision: conversation.revision,
            // Ending: it closes (and is evaluated) shortly; over: it already was, nothing changed.
            status: conversation.open ? 'ending' : 'over',
          },
        };
      },
    },
    {
      path: /^\/api\/v1\/conversations\/([^/]+)$/,
      get: async ([conversationId], url) => {
        const agent = await agentOf(conversationId, url);
        if ('status' in agent) return agent;
        const pruned = await gone(conversationId, agent.agentId);
        if (pruned) return pruned;
        const conversation = await store.getConversation(conversationId, agent.agentId);
        return conversation
          ? { status: 200, body: conversation }
          : error(404, `conversation ${conversationId} of agent ${agent.agentId} not found`);
      },
    },
  ];
}
