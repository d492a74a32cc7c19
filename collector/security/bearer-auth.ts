/**
 * The optional `auth.bearer_token` check. Both tokens are hashed before the comparison so that
 * `timingSafeEqual` compares equal lengths and the time taken says nothing about the token.
 */
import { createHash, timingSafeEqual } from 'node:crypto';

const BEARER = /^Bearer[ \t]+(\S+)[ \t]*$/i;

/** Returns a predicate over the Authorization header; without a token every request passes. */
export function createBearerCheck(token: string | undefined): (authorization: string | undefined) => boolean {
  if (token === undefined || token === '') return () => true;
  const expected = digest(token);
  return (authorization) => {
    const match = authorization === undefined ? null : BEARER.exec(authorization);
    // Hash something even without a match, so a missing header costs the same as a wrong one.
    const given = digest(match === null ? '' : match[1]);
    return timingSafeEqual(given, expected) && match !== null;
  };
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}
