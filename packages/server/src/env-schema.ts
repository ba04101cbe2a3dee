import { z } from 'zod';

/** An environment variable set to blank counts as unset. */
export const blankToUndefined = (v: unknown) => (typeof v === 'string' && v.trim() === '' ? undefined : v);

/** An optional variable: unset or blank is `undefined`, anything else must pass `schema`. */
export const optional = <T extends z.ZodType>(schema: T) => z.preprocess(blankToUndefined, schema.optional());

/** An http(s) URL. */
export const httpUrl = z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' });

/** A comma-separated list, its items trimmed, empty ones dropped. */
export const commaList = optional(z.string()).transform((s) =>
  s
    ?.split(',')
    .map((item) => item.trim())
    .filter(Boolean),
);

/** JSON text, parsed; `example` shows what is expected when it does not parse. */
export const jsonText = (example: string) =>
  z.string().transform((text, ctx) => {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      ctx.addIssue({ code: 'custom', message: `must be JSON, e.g. ${example}` });
      return z.NEVER;
    }
  });

/** A whole number from `min` to `max`, from its text. */
export const whole = (min: number, max: number) =>
  z.coerce
    .number({ error: 'must be a number' })
    .int('must be a whole number')
    .min(min, `must be at least ${min}`)
    .max(max, `must be at most ${max}`);
