// A browser of what the ledger holds: interactions and conversations, each with its verdicts.
import { ApiError, api } from './api.js';
import { h, link, outcomeBadge, outcomeText, show, time } from './dom.js';
import { interactionFacts, transcriptView } from './transcript.js';

export async function interactionsView(params) {
  const query = new URLSearchParams({ limit: '50' });
  if (params.get('agent')) query.set('agent', params.get('agent'));
  const { body } = await api(`api/v1/interactions?${query}`);
  const rows = body.interactions.map((interaction) =>
    h(
      'tr',
      {},
      h('td', {}, time(interaction.endTime)),
      h('td', {}, link('/interactions', new URLSearchParams({ agent: interaction.agentId }), interaction.agentId)),
      h('td', {}, interaction.failed ? h('span', { class: 'fail' }, 'failed') : 'ok'),
      h('td', {}, preview(interaction.finalResponseText)),
      h('td', {}, link(`/interactions/${encodeURIComponent(interaction.interactionId)}`, null, 'Open')),
    ),
  );
  show(
    params.get('agent') ? `Interactions of ${params.get('agent')}` : 'Interactions',
    rows.length === 0
      ? h('p', {}, 'No interactions recorded yet.')
      : h(
          'table',
          {},
          h('caption', {}, 'Newest first, at most 50'),
          h(
            'thead',
            {},
            h(
              'tr',
              {},
              ['Ended', 'Agent', 'Status', 'Reply', ''].map((t) => h('th', { scope: 'col' }, t)),
            ),
          ),
          h('tbody', {}, rows),
        ),
  );
}

export async function interactionView(interactionId) {
  const id = encodeURIComponent(interactionId);
  const [{ body: interaction }, { body: evaluations }] = await Promise.all([
    api(`api/v1/interactions/${id}`),
    api(`api/v1/interactions/${id}/evaluations`),
  ]);
  show(
    `Interaction of ${interaction.agentId}`,
    interactionFacts(interaction),
    h('h2', {}, 'Verdicts'),
    verdictsTable(evaluations.evaluations),
    h('h2', {}, 'Transcript'),
    transcriptView(interaction),
  );
}

export async function conversationsView() {
  let body;
  try {
    ({ body } = await api('api/v1/conversations?limit=50'));
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) {
      show('Conversations', h('p', {}, 'This collector does not serve conversations.'));
      return;
    }
    throw error;
  }
  const rows = body.conversations.map((c) =>
    h(
      'tr',
      {},
      h('td', {}, time(c.lastActivityTime)),
      h('td', {}, c.agentId),
      h('td', {}, String(c.turns)),
      h('td', {}, c.open ? 'open' : `over (revision ${c.revision})`),
      h(
        'td',
        {},
        link(
          `/conversations/${encodeURIComponent(c.conversationId)}`,
          new URLSearchParams({ agent: c.agentId }),
          c.conversationId,
        ),
      ),
    ),
  );
  show(
    'Conversations',
    rows.length === 0
      ? h('p', {}, 'No conversations recorded yet.')
      : h(
          'table',
          {},
          h('caption', {}, 'Most recently active first'),
          h(
            'thead',
            {},
            h(
              'tr',
              {},
              ['Last activity', 'Agent', 'Turns', 'State', 'Conversation'].map((t) => h('th', { scope: 'col' }, t)),
            ),
          ),
          h('tbody', {}, rows),
        ),
  );
}

export async function conversationView(conversationId, params) {
  const agent = params.get('agent') ? `?agent=${encodeURIComponent(params.get('agent'))}` : '';
  const id = encodeURIComponent(conversationId);
  const [{ body: conversation }, { body: evaluations }] = await Promise.all([
    api(`api/v1/conversations/${id}${agent}`),
    api(`api/v1/conversations/${id}/evaluations${agent}`),
  ]);
  show(
    `Conversation ${conversation.conversationId}`,
    h('p', {}, `Agent ${conversation.agentId}, ${conversation.turns} turns, revision ${conversation.revision}`),
    h('h2', {}, 'Verdicts'),
    verdictsTable(evaluations.evaluations),
    h('h2', {}, 'Turns'),
    h(
      'ol',
      {},
      conversation.interactions.map((interaction, index) =>
        h(
          'li',
          {},
          h(
            'h3',
            {},
            link(`/interactions/${encodeURIComponent(interaction.interactionId)}`, null, `Turn ${index + 1}`),
            ', ended ',
            time(interaction.endTime),
          ),
          transcriptView(interaction),
        ),
      ),
    ),
  );
}

function verdictsTable(records) {
  if (records.length === 0) return h('p', {}, 'No verdicts recorded (yet).');
  return h(
    'table',
    {},
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        ['Completed', 'Entry', 'Outcome', 'Why'].map((t) => h('th', { scope: 'col' }, t)),
      ),
    ),
    h(
      'tbody',
      {},
      records.map((record) =>
        h(
          'tr',
          {},
          h('td', {}, time(record.completedAt)),
          h('td', {}, record.evaluatorId, record.provenance?.reviewer ? ` (${record.provenance.reviewer})` : null),
          h('td', {}, outcomeBadge(record)),
          h('td', {}, outcomeText(record)),
        ),
      ),
    ),
  );
}

function preview(text) {
  const flat = String(text ?? '')
    .replace(/\s+/g, ' ')
    .trim();
  return flat.length > 80 ? `${flat.slice(0, 79)}…` : flat;
}
