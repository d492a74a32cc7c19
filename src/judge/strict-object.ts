/**
 * The criterion schema's wording of the shared configuration kit (`src/config/`): mappings that
 * reject unknown keys naming the closest known key (`unknown key "wieght" (did you mean
 * "weight"?)`), and values described after "got" (`expected a number, got a string ("heavy")`).
 */
import type * as z from 'zod';
import { describeValue as describe } from '../config/describe-value.ts';
import { strictObject as kitStrictObject } from '../config/strict-object.ts';

/** A mapping with exactly the keys of `shape`; `what` names it when something else is written. */
export function strictObject<Shape extends z.ZodRawShape>(shape: Shape, what = 'a mapping') {
  return kitStrictObject(shape, { expected: what });
}

/** A value for `expected …, got …`: `a string ("x")`, `a list`, `nothing`. */
export function describeValue(value: unknown): string {
  return describe(value, 'article');
}
