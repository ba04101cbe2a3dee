import type { z } from 'zod';
import type { FieldIssues } from './errors/agenthost-error.js';
import { InvalidInputError } from './errors/invalid-input-error.js';

/** Field key for issues about the input as a whole (for example, an array where an object belongs). */
export const ROOT_FIELD = 'request';

/** Turns zod issues into per-field details: the first issue of each top-level field. */
export function fieldIssues(error: z.ZodError): FieldIssues {
  const details: FieldIssues = {};
  for (const issue of error.issues) {
    const path = issue.path.map((p) => (typeof p === 'symbol' ? String(p) : p));
    const field = path.length > 0 ? String(path[0]) : ROOT_FIELD;
    details[field] ??= { message: issue.message, path };
  }
  return details;
}

/** Parses `input` with `schema`, or throws {@link InvalidInputError} with per-field details. */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const result = schema.safeParse(input ?? {});
  if (!result.success) throw new InvalidInputError({ details: fieldIssues(result.error), cause: result.error });
  return result.data;
}

/** An {@link InvalidInputError} about one field, as `parseInput` would report it. */
export function invalidField(name: string, message: string): InvalidInputError {
  return new InvalidInputError({ details: { [name]: { message, path: [name] } } });
}
