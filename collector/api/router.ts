/**
 * A tiny explicit router: a list of routes, each a path pattern and the GET handler for it.
 * HEAD is served by the GET handler (node:http drops the body); other methods on a known path
 * are 405 with `Allow`, unknown paths 404. Handlers return JSON replies; they never write.
 */

export interface JsonReply {
  status: number;
  /** Sent as JSON; as is when `contentType` is set (a page under `/ui/`). */
  body: unknown;
  contentType?: string;
}

export type Handler = (params: string[], url: URL) => Promise<JsonReply> | JsonReply;

export interface Route {
  /** Matched against the whole decoded-per-segment path; capture groups become `params`. */
  path: RegExp;
  get: Handler;
}

export type RouteMatch =
  | { kind: 'handler'; handler: Handler; params: string[] }
  | { kind: 'method-not-allowed'; allow: string }
  | { kind: 'not-found' }
  | { kind: 'bad-path'; message: string };

export function matchRoute(routes: readonly Route[], method: string, pathname: string): RouteMatch {
  // A trailing slash names the same resource (`/api/v1/interactions/`).
  const path = pathname.length > 1 && pathname.endsWith('/') ? pathname.slice(0, -1) : pathname;
  for (const route of routes) {
    const match = route.path.exec(path);
    if (!match) continue;
    if (method !== 'GET' && method !== 'HEAD') return { kind: 'method-not-allowed', allow: 'GET, HEAD' };
    let params: string[];
    try {
      params = match.slice(1).map((param) => decodeURIComponent(param));
    } catch {
      return { kind: 'bad-path', message: `malformed percent-encoding in path ${pathname}` };
    }
    return { kind: 'handler', handler: route.get, params };
  }
  return { kind: 'not-found' };
}
