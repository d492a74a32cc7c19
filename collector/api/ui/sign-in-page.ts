/**
 * The sign-in page of the review page: what any `/ui/…` request without the API's token or the
 * page's session cookie gets (401), and what `POST /ui/session` answers to a refused token (401)
 * and `GET /ui/session` after signing out (200). One self-contained document: its few styles are
 * inline (allowed by their hash), nothing loaded — the page's own files are behind the token, so
 * it cannot borrow them. The texts are fixed: nothing of the request is echoed back, and a refusal
 * says no more than "refused".
 *
 * One case carries a script: a navigation that started on another site (a link in a chat or a
 * mail). The browser withholds the `SameSite=Strict` session cookie from it, so a signed-in
 * browser would be asked again. That variant opens the same address again from this origin at
 * once — now the cookie goes along, or, when there is none, the plain sign-in page answers (that
 * navigation is same-origin: no loop). Without scripts it is the sign-in page as ever.
 */
import { createHash } from 'node:crypto';
import type { JsonReply } from '../router.ts';

/** Where the form posts: the page session's sign-in route (page-session.ts). */
export const SIGN_IN_PATH = '/ui/session';

/** `reopen`: the navigation came from another site (see above). */
export type SignInVariant = 'plain' | 'refused' | 'signed-out' | 'reopen';

const STYLE = [
  ':root{color-scheme:light dark;font-family:system-ui,sans-serif;line-height:1.45}',
  'body{margin:0 auto;max-width:28rem;padding:3rem 1rem}',
  'label,input,button{display:block;font:inherit}',
  'input{width:100%;box-sizing:border-box;margin:0.25rem 0 1rem;padding:0.4rem}',
  'button{padding:0.4rem 1rem}',
  'input:focus-visible,button:focus-visible{outline:3px solid #1a5fb4;outline-offset:2px}',
  '.alert{color:#b3261e;font-weight:600}',
].join('\n');

/**
 * The same address, fragment (the page's view) included. An added `?` makes it another URL:
 * `replace` to the very same one with a fragment would only scroll, not load.
 */
const REOPEN_SCRIPT = "location.replace(location.pathname + location.search + '?' + location.hash);";

const sha256 = (text: string) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;

/** Nothing but the inline styles above (and the reopening script); forms post only here; no framing. */
function contentSecurityPolicy(variant: SignInVariant): string {
  return [
    "default-src 'none'",
    `style-src ${sha256(STYLE)}`,
    ...(variant === 'reopen' ? [`script-src ${sha256(REOPEN_SCRIPT)}`] : []),
    "form-action 'self'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

const NOTICES: Readonly<Record<SignInVariant, string>> = {
  plain: '',
  reopen: '',
  refused: '<p class="alert" id="notice" role="alert">The collector refused that token.</p>',
  'signed-out': '<p id="notice" role="status">You are signed out.</p>',
};

function document(variant: SignInVariant): string {
  const describedBy = NOTICES[variant] === '' ? 'about' : 'notice about';
  const script = variant === 'reopen' ? `\n    <script>${REOPEN_SCRIPT}</script>` : '';
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <meta name="referrer" content="no-referrer">
    <title>Sign in · Evalon reviews</title>
    <style>${STYLE}</style>${script}
  </head>
  <body>
    <main>
      <h1>Sign in to Evalon reviews</h1>
      ${NOTICES[variant]}
      <p id="about">This collector's API asks for its token (<code>extensions.api.auth.bearer_token</code>).
        You sign in once: it holds until the browser closes.</p>
      <form method="post" action="${SIGN_IN_PATH}">
        <label for="token">API token</label>
        <input id="token" name="token" type="password" autocomplete="off" required autofocus
          aria-describedby="${describedBy}">
        <button type="submit">Sign in</button>
      </form>
    </main>
  </body>
</html>
`;
}

const VARIANTS: readonly SignInVariant[] = ['plain', 'refused', 'signed-out', 'reopen'];
const PAGES = new Map(VARIANTS.map((variant) => [variant, document(variant)]));
const POLICIES = new Map(VARIANTS.map((variant) => [variant, contentSecurityPolicy(variant)]));

/** The sign-in page as a reply: 401 (with `WWW-Authenticate`, as any 401 must) or 200. */
export function signInReply(
  status: 200 | 401,
  variant: SignInVariant = 'plain',
): JsonReply & { headers: Record<string, string> } {
  return {
    status,
    body: PAGES.get(variant),
    contentType: 'text/html; charset=utf-8',
    headers: {
      'content-security-policy': POLICIES.get(variant)!,
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
      ...(status === 401 ? { 'www-authenticate': 'Bearer' } : {}),
    },
  };
}
