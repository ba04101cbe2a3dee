import type { z } from 'zod';
import type { FieldIssues } from './errors/agenthost-error.js';
import { InvalidInputError } from './errors/invalid-input-error.js';

/** Field key for issues about the input as a whole (for example, an array where an object belongs). */
export const ROOT_FIELD = 'request';

type Issue = z.core.$ZodIssue;

/** Whether a union's branch failed on the value's type alone (a string where a list belongs). */
const wrongType = (branch: Issue[]) =>
  branch.length === 1 && branch[0]?.code === 'invalid_type' && branch[0].path.length === 0;

/**
 * A union's issue as the one branch whose type matched reports it (`input` given as a list of parts
 * reports what is wrong with a part, not that it is not a string either), else as it is.
 */
function narrowed(issue: Issue): Issue {
  if (issue.code !== 'invalid_union') return issue;
  const typed = issue.errors.filter((branch) => !wrongType(branch));
  const inner = typed.length === 1 ? typed[0]?.[0] : undefined;
  if (!inner) return issue;
  const deeper = narrowed(inner);
  return { ...deeper, path: [...issue.path, ...deeper.path] } as Issue;
}

/** Turns zod issues into per-field details: the first issue of each top-level field. */
export function fieldIssues(error: z.ZodError): FieldIssues {
  const details: FieldIssues = {};
  for (const raw of error.issues) {
    const issue = narrowed(raw);
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
