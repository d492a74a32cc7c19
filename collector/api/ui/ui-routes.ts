/**
 * `GET /ui/`: the review page, served from the files in `static/` beside this module (in the
 * package: dist/collector/api/ui/static/, copied there by the build). Plain HTML, CSS and ES
 * modules: nothing to build on the user's side, nothing fetched from elsewhere, so it works
 * offline. With a token on the API they are behind it like the rest: the token gate answers a
 * browser that has not signed in with the sign-in page (page-session.ts), and the page's calls to
 * /api/ carry the session cookie. They are read once, at startup, and only these names are served.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { extname } from 'node:path';
import type { JsonReply, Route } from '../router.ts';

const STATIC_DIR = new URL('./static/', import.meta.url);

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
};

/** The page's own headers: nothing but its own origin may be loaded or framed. */
const PAGE_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy':
    "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};

interface StaticFile {
  body: string;
  contentType: string;
}

function loadStaticFiles(): Map<string, StaticFile> {
  const files = new Map<string, StaticFile>();
  for (const name of readdirSync(STATIC_DIR)) {
    const contentType = CONTENT_TYPES[extname(name)];
    if (!contentType) continue;
    files.set(name, { body: readFileSync(new URL(name, STATIC_DIR), 'utf8'), contentType });
  }
  return files;
}

export function uiRoutes(): Route[] {
  const files = loadStaticFiles();
  const serve = (name: string): JsonReply => {
    const file = files.get(name);
    if (!file) return { status: 404, body: { error: `no page file ${name} under /ui/` } };
    return { status: 200, body: file.body, contentType: file.contentType, headers: { ...PAGE_HEADERS } };
  };
  return [
    {
      path: /^\/ui$/,
      get: (_params, url) =>
        // Relative links resolve against /ui/, not against /.
        url.pathname === '/ui'
          ? { status: 308, body: { location: '/ui/' }, headers: { location: '/ui/' } }
          : serve('index.html'),
    },
    { path: /^\/ui\/([A-Za-z0-9._-]+)$/, get: ([name]) => serve(name!) },
  ];
}
