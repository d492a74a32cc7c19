// Calls to the collector's API. When it answers 401 the page asks for the bearer token once per
// browser session (sessionStorage) and sends it as `Authorization: Bearer` from then on.
import { h, show } from './dom.js';

const TOKEN_KEY = 'evalon.api.token';

export class ApiError extends Error {
  constructor(status, body) {
    super(body?.error ?? `the API answered ${status}`);
    this.name = 'ApiError';
    this.status = status;
    this.body = body;
  }
}

/** Thrown when the token is missing or refused: the page shows the token form instead. */
export class TokenNeeded extends Error {
  constructor(refused) {
    super(refused ? 'the API refused the token' : 'the API needs a token');
    this.name = 'TokenNeeded';
    this.refused = refused;
  }
}

export async function api(path, options = {}) {
  const token = sessionStorage.getItem(TOKEN_KEY);
  const headers = { accept: 'application/json' };
  if (token) headers.authorization = `Bearer ${token}`;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`../${path}`, {
    method: options.method ?? 'GET',
    headers,
    ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}),
  });
  if (response.status === 401) {
    if (token) sessionStorage.removeItem(TOKEN_KEY);
    throw new TokenNeeded(Boolean(token));
  }
  let body;
  try {
    body = await response.json();
  } catch {
    throw new ApiError(response.status, { error: `the API answered ${response.status} with a body that is not JSON` });
  }
  if (!response.ok && !options.accept?.includes(response.status)) throw new ApiError(response.status, body);
  return { status: response.status, body };
}

/** The form that asks for the token; `retry` runs once it is saved. */
export function showTokenForm(refused, retry) {
  const input = h('input', { id: 'api-token', name: 'token', type: 'password', autocomplete: 'off', required: true });
  const form = h(
    'form',
    {
      onsubmit: (event) => {
        event.preventDefault();
        const value = input.value.trim();
        if (!value) return;
        sessionStorage.setItem(TOKEN_KEY, value);
        retry();
      },
    },
    h('label', { for: 'api-token' }, 'API token'),
    input,
    h('button', { type: 'submit' }, 'Use this token'),
  );
  show(
    'API token needed',
    h(
      'p',
      { role: refused ? 'alert' : null },
      refused
        ? 'The collector refused that token. Enter the token of extensions::api::auth::bearer_token.'
        : 'This collector asks for a bearer token. It is kept for this browser session only.',
    ),
    form,
  );
  input.focus();
}
