/**
 * The review page's session, with `auth.bearer_token` set: a browser cannot send a bearer token
 * when it navigates, so the page signs in once — `POST /ui/session` with the token, form-encoded —
 * and gets a session cookie that the token gate (token-gate.ts) accepts in place of the token, on
 * `/ui/` and `/api/` alike. `GET /ui/session` signs out.
 *
 * The cookie's value is not the token: it is HMAC-SHA256 keyed by the token over a fixed label.
 * So the browser's cookie store never holds the token (which may also open other doors: scripts,
 * the command line), the value cannot be turned back into it, and it needs no state here:
 * replicas sharing the token accept each other's sessions, a restart keeps them, and changing the
 * token ends them all. The cookie is `HttpOnly` (no script reads it), `SameSite=Strict` (no other
 * site's page sends it: with the JSON-only POSTs, that contains cross-site requests), `Secure` when
 * the API is served over TLS, and has no `Max-Age`: it lasts the browser session.
 */
import { createHmac } from 'node:crypto';
import { createSecretMatch } from '../../security/bearer-auth.ts';
import type { Route } from '../router.ts';
import { SIGN_IN_PATH, signInReply } from './sign-in-page.ts';

export const SESSION_COOKIE = 'evalon_session';

/** What the cookie's HMAC signs. Versioned: a change of scheme renames it and ends old sessions. */
const SESSION_LABEL = 'evalon review page session v1';

/** The session cookie's value for a token: the same on every replica and after every restart. */
export function sessionValue(token: string): string {
  return createHmac('sha256', token).update(SESSION_LABEL, 'utf8').digest('base64url');
}

export interface PageSession {
  /** Whether a Cookie header carries this token's session. Constant time. */
  signedIn(cookieHeader: string | undefined): boolean;
  /** `POST /ui/session` (sign in) and `GET /ui/session` (sign out); the gate lets both through. */
  routes: Route[];
}

export function createPageSession(token: string, options: { secure: boolean }): PageSession {
  const tokenMatches = createSecretMatch(token);
  const sessionMatches = createSecretMatch(sessionValue(token));
  const attributes = `Path=/; HttpOnly; SameSite=Strict${options.secure ? '; Secure' : ''}`;
  const setCookie = `${SESSION_COOKIE}=${sessionValue(token)}; ${attributes}`;
  const clearCookie = `${SESSION_COOKIE}=; ${attributes}; Max-Age=0`;
  return {
    signedIn(cookieHeader) {
      const values = cookieValues(cookieHeader, SESSION_COOKIE);
      // Compare something even without the cookie, so a missing one costs the same as a wrong one.
      let matched = false;
      for (const value of values.length > 0 ? values : ['']) matched = sessionMatches(value) || matched;
      return matched && values.length > 0;
    },
    routes: [
      {
        path: new RegExp(`^${SIGN_IN_PATH}$`),
        post: (_params, _url, body) => {
          // A pasted token often brings a line break along; a token never holds white space.
          const given = (new URLSearchParams(body).get('token') ?? '').trim();
          if (!tokenMatches(given)) return signInReply(401, 'refused');
          // 303: the browser follows with a GET, and a reload does not post the token again.
          return {
            status: 303,
            body: '',
            contentType: 'text/plain; charset=utf-8',
            headers: { location: '/ui/', 'set-cookie': setCookie },
          };
        },
        get: () => {
          const page = signInReply(200, 'signed-out');
          return { ...page, headers: { ...page.headers, 'set-cookie': clearCookie } };
        },
      },
    ],
  };
}

/** The values of the cookies named `name` in a Cookie header (a browser may send a name twice). */
function cookieValues(header: string | undefined, name: string): string[] {
  if (header === undefined) return [];
  const values: string[] = [];
  for (const pair of header.split(';')) {
    const equals = pair.indexOf('=');
    if (equals > 0 && pair.slice(0, equals).trim() === name) values.push(pair.slice(equals + 1).trim());
  }
  return values;
}
