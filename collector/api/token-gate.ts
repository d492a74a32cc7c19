/**
 * The API's token check, in front of the router so that every route is covered, those added later
 * included. With `auth.bearer_token` set, any path but the health checks needs credentials: the
 * token as `Authorization: Bearer <token>`, or the review page's session cookie, got by signing in
 * with the token (ui/page-session.ts). Without them, `/ui/…` answers 401 with the sign-in page and
 * anything else 401 in JSON (`WWW-Authenticate: Bearer` on both). The health checks stay open so
 * that load balancers and orchestrators can probe without a secret; the sign-in route is open
 * because it checks the token itself. A navigation from another site, which the browser sends
 * without the cookie, gets a sign-in page that opens the address again from here
 * (sign-in-page.ts). Comparisons are the OTLP receiver's (security/bearer-auth.ts): constant time.
 *
 * A browser sends the cookie on its own, so a POST that carries only the cookie must be JSON:
 * another origin's page cannot send `Content-Type: application/json` without the API's consent
 * (a CORS preflight, which it never grants), while an HTML form can post anything else. With
 * `SameSite=Strict`, that keeps requests forged by other sites — and sibling sites — out.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { createBearerCheck } from '../security/bearer-auth.ts';
import { isJsonContentType } from './request-body.ts';
import type { JsonReply } from './router.ts';
import type { PageSession } from './ui/page-session.ts';
import { SIGN_IN_PATH, signInReply } from './ui/sign-in-page.ts';

/** Paths answered without the token: liveness and readiness probes. */
export const OPEN_PATHS: ReadonlySet<string> = new Set(['/healthz', '/readyz']);

export interface TokenRefusal extends JsonReply {
  headers: Record<string, string>;
}

/** What the gate reads of a request. */
export interface GateRequest {
  method: string;
  pathname: string;
  headers: IncomingHttpHeaders;
}

/** The review page: what a browser navigates to, so it is answered with the sign-in page. */
function isPagePath(path: string): boolean {
  return path === '/ui' || path.startsWith('/ui/');
}

/** Returns the reply to send for a request without credentials, or undefined to let it through. */
export function createTokenGate(
  bearerToken: string | undefined,
  session: Pick<PageSession, 'signedIn'> | undefined,
): (request: GateRequest) => TokenRefusal | undefined {
  if (bearerToken === undefined || bearerToken === '') return () => undefined;
  const bearerMatches = createBearerCheck(bearerToken);
  return (request) => {
    const { pathname, headers } = request;
    const path = pathname.length > 1 && pathname.endsWith('/') ? pathname.slice(0, -1) : pathname;
    if (OPEN_PATHS.has(path) || path === SIGN_IN_PATH) return undefined;
    if (bearerMatches(headers.authorization)) return undefined;
    if (session?.signedIn(headers.cookie)) {
      if (request.method !== 'POST' || isJsonContentType(headers['content-type'])) return undefined;
      return {
        status: 415,
        body: {
          error: "a POST carried by the review page's session cookie must be JSON (Content-Type: application/json)",
          field: 'content-type',
        },
        headers: {},
      };
    }
    if (isPagePath(path)) return signInReply(401, cameFromAnotherSite(request) ? 'reopen' : 'plain');
    return {
      status: 401,
      body: { error: 'missing or wrong bearer token (send Authorization: Bearer <token>)' },
      headers: { 'www-authenticate': 'Bearer' },
    };
  };
}

/**
 * A navigation that started on another site (Fetch Metadata): the browser withheld a
 * `SameSite=Strict` cookie from it, if it has one — the sign-in page then opens the address again.
 */
function cameFromAnotherSite({ method, headers }: GateRequest): boolean {
  return method === 'GET' && headers['sec-fetch-site'] === 'cross-site' && headers['sec-fetch-mode'] === 'navigate';
}
