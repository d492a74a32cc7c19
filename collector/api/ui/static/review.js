// One review: why it is in the queue, the routed verdict, the subject's transcript, and the form for
// the human verdict (pass or fail, score, label, explanation, reviewer). Enter in a field submits.
import { ApiError, api } from './api.js';
import { h, link, outcomeBadge, outcomeText, show, time } from './dom.js';
import { reasonText } from './queue.js';
import { interactionFacts, transcriptView } from './transcript.js';

const REVIEWER_KEY = 'evalon.reviewer';

export async function reviewView(reviewId) {
  const { body } = await api(`api/v1/reviews/${encodeURIComponent(reviewId)}`);
  const { review, interaction, conversation } = body;
  const status = h('div', { id: 'review-status', role: 'status', 'aria-live': 'polite' });
  const sections = [
    h('p', {}, link('/reviews', new URLSearchParams({ status: 'open' }), '← Review queue')),
    h(
      'section',
      { 'aria-labelledby': 'why' },
      h('h2', { id: 'why' }, 'Why it is in the queue'),
      h('p', {}, reasonText(review), ' — entry ', h('code', {}, review.entryId), ', status ', review.status),
      h('p', {}, 'Queued ', time(review.createdAt), review.dueAt ? [', due ', time(review.dueAt)] : null),
      review.claim ? h('p', {}, `Claimed by ${review.claim.reviewer} until `, time(review.claim.until)) : null,
    ),
    routedSection(review),
    h(
      'section',
      { 'aria-labelledby': 'transcript' },
      h('h2', { id: 'transcript' }, 'Transcript'),
      subjectView(review, interaction, conversation),
    ),
    review.status === 'done' || review.status === 'expired'
      ? recordSection('Recorded verdict', review.record)
      : verdictForm(review, status),
    status,
  ];
  show(`Review of ${review.agentId}`, sections);
}

/** The reviewed interaction, or every turn of the reviewed conversation revision. */
function subjectView(review, interaction, conversation) {
  if (review.subject?.kind === 'conversation') {
    if (!conversation) return h('p', {}, 'The conversation is no longer in the ledger.');
    const { conversationId, agentId, interactions } = conversation;
    return [
      h(
        'p',
        {},
        `Conversation ${conversationId} of ${agentId}, revision ${review.subject.revision}, ` +
          `${interactions.length} turns`,
      ),
      h(
        'ol',
        {},
        interactions.map((turn, index) =>
          h('li', {}, h('h3', {}, `Turn ${index + 1}`), interactionFacts(turn), transcriptView(turn)),
        ),
      ),
    ];
  }
  if (!interaction) return h('p', {}, 'The interaction is no longer in the ledger.');
  return [interactionFacts(interaction), transcriptView(interaction)];
}

function routedSection(review) {
  if (!review.routedVerdict) return null;
  const record = review.routedVerdict;
  return h(
    'section',
    { 'aria-labelledby': 'routed' },
    h('h2', { id: 'routed' }, 'Routed verdict'),
    h('p', {}, h('code', {}, record.evaluatorId), ' recorded ', outcomeBadge(record)),
    h('pre', {}, outcomeText(record)),
  );
}

function recordSection(title, record) {
  if (!record) return null;
  const reviewer =
    record.outcome?.type === 'verdict' ? record.outcome.evaluation.attributes?.['evalon.reviewer'] : undefined;
  const evaluation = record.outcome?.type === 'verdict' ? record.outcome.evaluation : undefined;
  return h(
    'section',
    { 'aria-labelledby': 'recorded' },
    h('h2', { id: 'recorded' }, title),
    h(
      'p',
      {},
      outcomeBadge(record),
      reviewer ? ` by ${reviewer}` : null,
      evaluation?.label ? ` — label ${evaluation.label}` : null,
    ),
    h('pre', {}, outcomeText(record)),
    h('p', { class: 'muted' }, 'Recorded ', time(record.completedAt)),
  );
}

function field(id, text, input) {
  return h('div', {}, h('label', { for: id }, text), h('br'), input);
}

function verdictForm(review, status) {
  const reviewer = h('input', {
    id: 'verdict-reviewer',
    name: 'reviewer',
    type: 'text',
    required: true,
    autocomplete: 'username',
    value: localStorage.getItem(REVIEWER_KEY) ?? '',
  });
  const score = h('input', { id: 'verdict-score', name: 'score', type: 'number', min: 0, max: 1, step: 0.01 });
  const label = h('input', { id: 'verdict-label', name: 'label', type: 'text' });
  const explanation = h('input', { id: 'verdict-explanation', name: 'explanation', type: 'text', required: true });
  const pass = h('input', { id: 'verdict-pass', name: 'passed', type: 'radio', value: 'true', required: true });
  const fail = h('input', { id: 'verdict-fail', name: 'passed', type: 'radio', value: 'false' });
  const claim = h('button', { type: 'button', id: 'claim' }, 'Claim for 30 minutes');
  claim.addEventListener('click', async () => {
    if (!reviewer.value.trim()) {
      status.replaceChildren('Enter your name as reviewer first.');
      reviewer.focus();
      return;
    }
    try {
      const { body } = await api(`api/v1/reviews/${encodeURIComponent(review.reviewId)}/claim`, {
        method: 'POST',
        body: { reviewer: reviewer.value.trim() },
      });
      status.replaceChildren(`Claimed by ${body.claim.reviewer} until ${new Date(body.claim.until).toLocaleString()}.`);
    } catch (error) {
      status.replaceChildren(error instanceof Error ? error.message : String(error));
    }
  });
  const form = h(
    'form',
    { id: 'verdict-form', 'aria-labelledby': 'verdict-heading' },
    h('h2', { id: 'verdict-heading' }, 'Your verdict'),
    h(
      'fieldset',
      {},
      h('legend', {}, 'Verdict'),
      pass,
      h('label', { for: 'verdict-pass' }, 'Pass'),
      ' ',
      fail,
      h('label', { for: 'verdict-fail' }, 'Fail'),
    ),
    field('verdict-score', 'Score (0 to 1, optional)', score),
    field('verdict-label', 'Label (optional)', label),
    field('verdict-explanation', 'Explanation', explanation),
    field('verdict-reviewer', 'Reviewer', reviewer),
    h('div', {}, h('button', { type: 'submit' }, 'Record verdict'), ' ', claim),
  );
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const verdict = {
      passed: pass.checked,
      explanation: explanation.value,
      reviewer: reviewer.value,
      ...(score.value !== '' ? { score: Number(score.value) } : {}),
      ...(label.value.trim() !== '' ? { label: label.value } : {}),
    };
    localStorage.setItem(REVIEWER_KEY, reviewer.value.trim());
    status.replaceChildren('Recording…');
    try {
      const { status: code, body } = await api(`api/v1/reviews/${encodeURIComponent(review.reviewId)}`, {
        method: 'POST',
        body: verdict,
        accept: [409],
      });
      if (code === 409) {
        status.replaceChildren(h('span', { role: 'alert' }, body.error));
        if (body.record) form.replaceWith(recordSection('Recorded verdict', body.record));
        return;
      }
      if (code === 202) {
        status.replaceChildren('Accepted: the verdict will be recorded shortly.');
        return;
      }
      form.replaceWith(recordSection('Recorded verdict', body));
      status.replaceChildren(
        'Verdict recorded. ',
        link('/reviews', new URLSearchParams({ status: 'open' }), 'Back to the queue'),
      );
    } catch (error) {
      const text =
        error instanceof ApiError
          ? `${error.message}${error.body?.field ? ` (field ${error.body.field})` : ''}`
          : error instanceof Error
            ? error.message
            : String(error);
      status.replaceChildren(h('span', { role: 'alert' }, text));
    }
  });
  return form;
}
