/**
 * The optional `auth.bearer_token` check. Both tokens are hashed before the comparison so that
 * `timingSafeEqual` compares equal lengths and the time taken says nothing about the token.
 */
import { createHash, timingSafeEqual } from 'node:crypto';

const BEARER = /^Bearer[ \t]+(\S+)[ \t]*$/i;

/** Returns a predicate over the Authorization header; without a token every request passes. */
export function createBearerCheck(token: string | undefined): (authorization: string | undefined) => boolean {
  if (token === undefined || token === '') return () => true;
  const matches = createSecretMatch(token);
  return (authorization) => {
    const match = authorization === undefined ? null : BEARER.exec(authorization);
    // Compare something even without a match, so a missing header costs the same as a wrong one.
    return matches(match === null ? '' : match[1]!) && match !== null;
  };
}

/**
 * Returns a constant-time predicate `given === secret`, for secrets that do not arrive in an
 * Authorization header (the review page's sign-in form, its session cookie).
 */
export function createSecretMatch(secret: string): (given: string) => boolean {
  const expected = digest(secret);
  return (given) => timingSafeEqual(digest(given), expected);
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}
