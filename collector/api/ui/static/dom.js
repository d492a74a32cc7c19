// Building the page from data without ever parsing it as HTML: every text goes in as a text node.
// Transcripts and verdicts are user data; nothing here touches innerHTML.

/**
 * `h('a', { href: '#/x', class: 'pass' }, 'text', child)`: an element with its attributes and
 * children (strings become text nodes; null, undefined and false are skipped).
 */
export function h(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith('on') && typeof value === 'function') element.addEventListener(name.slice(2), value);
    else element.setAttribute(name, value === true ? '' : String(value));
  }
  append(element, children);
  return element;
}

function append(element, children) {
  for (const child of children) {
    if (child === undefined || child === null || child === false) continue;
    if (Array.isArray(child)) append(element, child);
    else element.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** Replaces what `main` shows, titles the document, and moves focus there for keyboard and screen readers. */
export function show(title, ...children) {
  const main = document.getElementById('main');
  main.replaceChildren(h('h1', {}, title), ...children.flat().filter(Boolean));
  document.title = `${title} · Evalon`;
  main.focus();
}

/** A JSON value as readable text (arguments, results). */
export function json(value) {
  if (typeof value === 'string') return value;
  try {
    return JSON.stringify(value, null, 2);
  } catch {
    return String(value);
  }
}

/** pass / fail / inconclusive / error of a record's outcome. */
export function outcomeWord(record) {
  const outcome = record?.outcome;
  if (!outcome) return '—';
  if (outcome.type === 'verdict') return outcome.evaluation.passed ? 'pass' : 'fail';
  return outcome.type === 'inconclusive' ? 'inconclusive' : 'error';
}

/** The outcome as a labelled word: `fail (score 0.2)`. */
export function outcomeBadge(record) {
  const word = outcomeWord(record);
  const score = record?.outcome?.type === 'verdict' ? record.outcome.evaluation.score : undefined;
  return h('span', { class: word }, score === undefined ? word : `${word} (score ${score})`);
}

/** Why an outcome came out as it did: the explanation, the reason, or the error. */
export function outcomeText(record) {
  const outcome = record?.outcome;
  if (!outcome) return '';
  if (outcome.type === 'verdict') return outcome.evaluation.explanation;
  if (outcome.type === 'inconclusive') return outcome.reason;
  return `${outcome.errorType ?? 'Error'}: ${outcome.error}`;
}

export function time(iso) {
  if (!iso) return '—';
  const date = new Date(iso);
  return h('time', { datetime: iso }, date.toLocaleString());
}

/** `#/path?key=value`: the route and its parameters. */
export function parseHash(hash) {
  const text = hash.replace(/^#/, '') || '/reviews';
  const [path, query = ''] = text.split('?');
  return { parts: path.split('/').filter(Boolean).map(decodeURIComponent), params: new URLSearchParams(query) };
}

export function link(path, params, text) {
  const query = params && [...params].length > 0 ? `?${params}` : '';
  return h('a', { href: `#${path}${query}` }, text);
}
