// A subject's transcript: each message with its role, each tool call with its arguments and result.
import { h, json, link } from './dom.js';

export function transcriptView(interaction) {
  const entries = interaction?.transcript ?? [];
  if (entries.length === 0) return h('p', { class: 'muted' }, 'No transcript was recorded for this interaction.');
  return h('ol', { class: 'transcript' }, entries.map(entryView));
}

function entryView(entry) {
  if (entry.type === 'message') {
    return h('li', {}, h('strong', {}, entry.role), ': ', h('pre', {}, entry.content ?? ''));
  }
  if (entry.type === 'tool_call') {
    return h(
      'li',
      {},
      h('strong', {}, 'tool call '),
      h('code', {}, entry.name),
      entry.callId ? h('span', { class: 'muted' }, ` (${entry.callId})`) : null,
      h('p', {}, 'Arguments:'),
      h('pre', {}, entry.arguments === undefined ? '(none)' : json(entry.arguments)),
      entry.error !== undefined
        ? [h('p', { class: 'error' }, 'Error:'), h('pre', {}, entry.error)]
        : [h('p', {}, 'Result:'), h('pre', {}, entry.result === undefined ? '(none)' : json(entry.result))],
    );
  }
  if (entry.type === 'agent_call') {
    return h(
      'li',
      {},
      h('strong', {}, 'agent call '),
      h('code', {}, entry.agentId),
      ' — ',
      link(`/interactions/${encodeURIComponent(entry.interactionId)}`, null, entry.interactionId),
    );
  }
  return h('li', {}, h('pre', {}, json(entry)));
}

/** The interaction's header facts: agent, time, model, failure. */
export function interactionFacts(interaction) {
  const rows = [
    ['Agent', interaction.agentId],
    ['Interaction', interaction.interactionId],
    ['Conversation', interaction.conversationId],
    ['Ended', interaction.endTime],
    ['Model', interaction.model],
    ['Failed', interaction.failed ? `yes${interaction.failureSummary ? `: ${interaction.failureSummary}` : ''}` : 'no'],
  ].filter(([, value]) => value !== undefined && value !== null && value !== '');
  return h(
    'dl',
    {},
    rows.map(([term, value]) => [h('dt', {}, term), h('dd', {}, String(value))]),
  );
}
