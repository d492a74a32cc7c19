// The review queue: one status at a time, a page at a time (the API's cursor).
import { api } from './api.js';
import { h, link, outcomeBadge, show, time } from './dom.js';

const STATUSES = ['open', 'claimed', 'done', 'expired'];

export async function queueView(params) {
  const status = STATUSES.includes(params.get('status')) ? params.get('status') : 'open';
  const query = new URLSearchParams({ status, limit: '50' });
  if (params.get('agent')) query.set('agent', params.get('agent'));
  if (params.get('cursor')) query.set('cursor', params.get('cursor'));
  const { body } = await api(`api/v1/reviews?${query}`);
  const filters = h(
    'nav',
    { 'aria-label': 'Review status' },
    h(
      'ul',
      {},
      STATUSES.map((s) =>
        h(
          'li',
          {},
          s === status
            ? h('strong', { 'aria-current': 'page' }, s)
            : link('/reviews', new URLSearchParams({ status: s }), s),
        ),
      ),
    ),
  );
  const rows = body.reviews.map((review) =>
    h(
      'tr',
      {},
      h('td', {}, time(review.createdAt)),
      h('td', {}, review.agentId),
      h('td', {}, review.entryId),
      h('td', {}, reasonText(review)),
      h('td', {}, review.routedVerdict ? outcomeBadge(review.routedVerdict) : '—'),
      h('td', {}, statusText(review)),
      h('td', {}, link(`/reviews/${encodeURIComponent(review.reviewId)}`, null, `Review ${shortId(review.reviewId)}`)),
    ),
  );
  const table =
    rows.length === 0
      ? h('p', {}, `No ${status} reviews.`)
      : h(
          'table',
          {},
          h(
            'caption',
            {},
            `${status} reviews, ${status === 'open' || status === 'claimed' ? 'oldest' : 'newest'} first`,
          ),
          h(
            'thead',
            {},
            h(
              'tr',
              {},
              ['Queued', 'Agent', 'Entry', 'Why', 'Routed verdict', 'Status', ''].map((t) =>
                h('th', { scope: 'col' }, t),
              ),
            ),
          ),
          h('tbody', {}, rows),
        );
  const paging = [];
  if (params.get('cursor')) paging.push(link('/reviews', new URLSearchParams({ status }), 'First page'));
  if (body.nextCursor)
    paging.push(link('/reviews', new URLSearchParams({ status, cursor: body.nextCursor }), 'Next page'));
  show('Review queue', filters, table, paging.length > 0 ? h('nav', { 'aria-label': 'Pages' }, paging) : null);
}

export function reasonText(review) {
  const reason = review.reason;
  if (reason?.kind === 'routed') return `routed: ${reason.after} recorded ${reason.outcome}`;
  return 'sampled (audit)';
}

function statusText(review) {
  if (review.status === 'claimed') return `claimed by ${review.claim.reviewer}`;
  if (review.status === 'open' && review.dueAt) return h('span', {}, 'open, due ', time(review.dueAt));
  return review.status;
}

function shortId(id) {
  return id.length > 8 ? id.slice(0, 8) : id;
}
