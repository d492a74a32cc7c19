// Calls to the collector's API, on the page's own origin. With a token on the API, the browser has
// signed in before it got this page: its session cookie (HttpOnly, never seen here) goes along with
// every call, so the page holds no token. A 401 means the session ended (the token changed).
import { h, show } from './dom.js';

export class ApiError extends Error {
  constructor(status, body) {
    super(body?.error ?? `the API answered ${status}`);
    this.name = 'ApiError';
    this.status = status;
    this.body = body;
  }
}

/**
 * Thrown when the API no longer accepts the session. A view shows the way to sign in again; a form
 * keeps what was typed and says how to send it anyway (signing in in another tab renews the cookie
 * for this one too).
 */
export class SignInNeeded extends Error {
  constructor() {
    super('The session ended: sign in again (open this page in another tab), then send this again.');
    this.name = 'SignInNeeded';
  }
}

export async function api(path, options = {}) {
  const headers = { accept: 'application/json' };
  // The API refuses a POST that is not JSON (it keeps forms posted by other sites out).
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`../${path}`, {
    method: options.method ?? 'GET',
    headers,
    ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}),
  });
  if (response.status === 401) throw new SignInNeeded();
  let body;
  try {
    body = await response.json();
  } catch {
    throw new ApiError(response.status, { error: `the API answered ${response.status} with a body that is not JSON` });
  }
  if (!response.ok && !options.accept?.includes(response.status)) throw new ApiError(response.status, body);
  return { status: response.status, body };
}

/** Says the session ended, with the way back: the page's address answers with the sign-in form. */
export function showSignIn() {
  show(
    'Signed out',
    h('p', { role: 'alert' }, 'The collector no longer accepts this session: its token changed, or you signed out.'),
    h('p', {}, h('a', { href: './' }, 'Sign in again')),
  );
}
