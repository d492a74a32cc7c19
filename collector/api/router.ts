/**
 * A tiny explicit router: a list of routes, each a path pattern with its GET handler and, for the
 * few that act (ending a conversation, claiming and submitting reviews, signing in to the review
 * page), a POST handler that gets the request's body; a route whose POST reads JSON says so
 * (`json`), and the server refuses other bodies with 415 before the handler runs. HEAD is served
 * by the GET handler (node:http drops the body); other methods on a known path are 405 with
 * `Allow`, unknown paths 404. Handlers return replies; they never write to the response.
 */

export interface JsonReply {
  status: number;
  /** Sent as JSON; as is when `contentType` is set (a page under `/ui/`). */
  body: unknown;
  contentType?: string;
  /** Extra response headers. */
  headers?: Record<string, string>;
}

/** `body` is the request's body as text (empty for a GET). */
export type Handler = (params: string[], url: URL, body: string) => Promise<JsonReply> | JsonReply;

export interface Route {
  /** Matched against the whole decoded-per-segment path; capture groups become `params`. */
  path: RegExp;
  get?: Handler;
  /** Only where the API acts (ending a conversation, claiming and submitting reviews, signing in). */
  post?: Handler;
  /** The POST's body is JSON: anything but `Content-Type: application/json` is refused (415). */
  json?: true;
}

export type RouteMatch =
  | { kind: 'handler'; handler: Handler; params: string[]; json: boolean }
  | { kind: 'method-not-allowed'; allow: string }
  | { kind: 'not-found' }
  | { kind: 'bad-path'; message: string };

export function matchRoute(routes: readonly Route[], method: string, pathname: string): RouteMatch {
  // A trailing slash names the same resource (`/api/v1/interactions/`).
  const path = pathname.length > 1 && pathname.endsWith('/') ? pathname.slice(0, -1) : pathname;
  for (const route of routes) {
    const match = route.path.exec(path);
    if (!match) continue;
    const handler = method === 'GET' || method === 'HEAD' ? route.get : method === 'POST' ? route.post : undefined;
    if (!handler) return { kind: 'method-not-allowed', allow: allowed(route) };
    let params: string[];
    try {
      params = match.slice(1).map((param) => decodeURIComponent(param));
    } catch {
      return { kind: 'bad-path', message: `malformed percent-encoding in path ${pathname}` };
    }
    return { kind: 'handler', handler, params, json: method === 'POST' && route.json === true };
  }
  return { kind: 'not-found' };
}

function allowed(route: Route): string {
  return [...(route.get ? ['GET', 'HEAD'] : []), ...(route.post ? ['POST'] : [])].join(', ');
}
