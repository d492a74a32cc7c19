/**
 * The API's bearer-token check, in front of the router so that every route is covered, those added
 * later included: with `auth.bearer_token` set, any path but the health checks and the review
 * page's static files answers 401 (JSON, `WWW-Authenticate: Bearer`) unless the request carries
 * `Authorization: Bearer <token>`. The health checks stay open so that load balancers and
 * orchestrators can probe without a secret. The comparison is the OTLP receiver's
 * (security/bearer-auth.ts): constant time.
 */
import { createBearerCheck } from '../security/bearer-auth.ts';
import type { JsonReply } from './router.ts';

/** Paths answered without the token: liveness and readiness probes. */
export const OPEN_PATHS: ReadonlySet<string> = new Set(['/healthz', '/readyz']);

export interface TokenRefusal extends JsonReply {
  headers: Record<string, string>;
}

/**
 * The review page's static files (`/ui/`): code, no ledger data. A browser cannot send a bearer
 * token when it navigates, so the page loads without one, asks the user for it, and sends it on
 * every call to `/api/`, which the gate keeps closed.
 */
function isPageFile(path: string): boolean {
  return path === '/ui' || path.startsWith('/ui/');
}

/** Returns the 401 to send for a request that lacks the token, or undefined to let it through. */
export function createTokenGate(
  bearerToken: string | undefined,
): (pathname: string, authorization: string | undefined) => TokenRefusal | undefined {
  if (bearerToken === undefined) return () => undefined;
  const authorized = createBearerCheck(bearerToken);
  return (pathname, authorization) => {
    const path = pathname.length > 1 && pathname.endsWith('/') ? pathname.slice(0, -1) : pathname;
    if (OPEN_PATHS.has(path) || isPageFile(path) || authorized(authorization)) return undefined;
    return {
      status: 401,
      body: { error: 'missing or wrong bearer token (send Authorization: Bearer <token>)' },
      headers: { 'www-authenticate': 'Bearer' },
    };
  };
}
