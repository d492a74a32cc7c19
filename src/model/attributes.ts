/**
 * The names of Evalon's own span and record attributes, written once for the library and the
 * collector alike (the home of every `evalon.*` and `gen_ai.*` name they share).
 */

/**
 * The loop-safety mark: set on an evaluation's own spans (a judge's model calls, an evaluation's
 * span) and on the resource of an agent run inside an evaluation. An interaction that carries it,
 * or is nested in one that does, is recorded but never evaluated.
 */
export const EVALUATION_ID_ATTRIBUTE = 'evalon.evaluation.id';
