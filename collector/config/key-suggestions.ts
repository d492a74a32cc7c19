/**
 * "Did you mean" for keys lives in the shared configuration kit; this re-export keeps the
 * collector modules that import it from here working.
 */
export { closestKey, editDistance, normalizeKey, suggestionHint } from '../../src/config/key-suggestions.ts';
