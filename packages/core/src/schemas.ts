import { z } from 'zod';

/** Most characters an agent name may have. */
export const MAX_NAME_LENGTH = 200;
/** Most characters an agent instruction may have. */
export const MAX_INSTRUCTION_LENGTH = 100_000;
/** Most characters a run input may have. */
export const MAX_INPUT_LENGTH = 100_000;
/** Client-chosen session ids: 1 to 128 characters of `[A-Za-z0-9._:-]`. */
export const SESSION_ID_PATTERN = /^[A-Za-z0-9._:-]{1,128}$/;

// NUL and unpaired UTF-16 surrogates are refused by some storage engines (Postgres text, strict UTF-8
// encoders); rejecting them here keeps every backend consistent.
// biome-ignore lint/suspicious/noControlCharactersInRegex: NUL is exactly what this finds.
const UNSAFE_TEXT = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function text(field: string, max: number) {
  return z
    .string({ error: (issue) => (issue.input === undefined ? `${field} is required` : `${field} must be a string`) })
    .max(max, `${field} must be at most ${max} characters`)
    .refine((s) => s.trim().length > 0, `${field} must not be blank`)
    .refine((s) => !UNSAFE_TEXT.test(s), `${field} must not contain NUL or unpaired surrogate characters`);
}

/**
 * Input of `createAgent`. Unknown fields (including server-owned ones such as `agent_id` or
 * `created_at`) are dropped. `tool` of `"none"`/`"None"`/`""` means no tool.
 */
export const createAgentInputSchema = z.object({
  name: text('name', MAX_NAME_LENGTH).transform((s) => s.trim()),
  instruction: text('instruction', MAX_INSTRUCTION_LENGTH),
  model: text('model', MAX_NAME_LENGTH).transform((s) => s.trim()),
  tool: z
    .string({ error: 'tool must be a string or null' })
    .max(MAX_NAME_LENGTH, `tool must be at most ${MAX_NAME_LENGTH} characters`)
    .nullish()
    .transform((t) => {
      const v = t?.trim();
      return !v || v.toLowerCase() === 'none' ? null : v;
    }),
  component: text('component', MAX_NAME_LENGTH)
    .transform((s) => s.trim())
    .optional()
    .transform((c) => c ?? 'Chat'),
});

/** What a caller passes to `createAgent`. */
export type CreateAgentInput = z.input<typeof createAgentInputSchema>;

/**
 * Input of `updateAgent`: any of the create fields, each validated as on create. Fields not given
 * keep their value. Server-owned fields are dropped.
 */
export const updateAgentInputSchema = z.object({
  name: text('name', MAX_NAME_LENGTH)
    .transform((s) => s.trim())
    .optional(),
  instruction: text('instruction', MAX_INSTRUCTION_LENGTH).optional(),
  model: text('model', MAX_NAME_LENGTH)
    .transform((s) => s.trim())
    .optional(),
  tool: z
    .string({ error: 'tool must be a string or null' })
    .max(MAX_NAME_LENGTH, `tool must be at most ${MAX_NAME_LENGTH} characters`)
    .nullable()
    .optional()
    .transform((t) => {
      if (t === undefined) return undefined;
      const v = t?.trim();
      return !v || v.toLowerCase() === 'none' ? null : v;
    }),
  component: text('component', MAX_NAME_LENGTH)
    .transform((s) => s.trim())
    .optional(),
});

/** What a caller passes to `updateAgent`. */
export type UpdateAgentInput = z.input<typeof updateAgentInputSchema>;

/**
 * The fields of a run input, before the rules that join them: an object schema a transport can
 * `.extend()` with fields of its own (the HTTP adapter's `stream`) and read with {@link withRunRules}.
 */
export const runAgentFieldsSchema = z.object({
  input: text('input', MAX_INPUT_LENGTH).optional(),
  input_data: text('input_data', MAX_INPUT_LENGTH).optional(),
  session_id: z
    .string({ error: 'session_id must be a string' })
    .regex(SESSION_ID_PATTERN, 'session_id must be 1 to 128 characters of letters, digits, ".", "_", ":" or "-"')
    .nullish(),
  json_mode: z.boolean({ error: 'json_mode must be true or false' }).nullish(),
  json_format: z
    .union([z.record(z.string(), z.unknown()), z.string()], {
      error: 'json_format must be a JSON Schema object or its JSON text',
    })
    .nullish(),
});

/**
 * A run input schema over `fields` (the run's fields, maybe with a transport's own): `input` is
 * required, and `input_data` is read as `input` when `input` is not given.
 */
export function withRunRules<T extends z.ZodType<z.output<typeof runAgentFieldsSchema>>>(fields: T) {
  return fields
    .superRefine((value, ctx) => {
      if (value.input === undefined && value.input_data === undefined)
        ctx.addIssue({ code: 'custom', message: 'input is required', path: ['input'] });
    })
    .transform(({ input, input_data, ...rest }) => ({ ...rest, input: (input ?? input_data)! }));
}

/**
 * Input of `runAgent` and `streamAgent`. `input_data` is accepted as an alias of `input` (older
 * clients send it). A missing or `null` `session_id` starts a new conversation. `json_mode` asks for
 * a JSON answer; `json_format` (a JSON Schema, as an object or as its JSON text) also constrains it.
 * Unknown fields are dropped.
 */
export const runAgentInputSchema = withRunRules(runAgentFieldsSchema);

/** What a caller passes to `runAgent`. */
export type RunAgentInput = z.input<typeof runAgentInputSchema>;

/**
 * Earlier turns a caller sends with a run (`RunOptions.history`), oldest first: user and assistant
 * messages, each at most as long as an input.
 */
export const runHistorySchema = z.array(
  z.object({
    role: z.enum(['user', 'assistant'], { error: 'role must be "user" or "assistant"' }),
    content: z
      .string({ error: 'content must be a string' })
      .max(MAX_INPUT_LENGTH, `content must be at most ${MAX_INPUT_LENGTH} characters`)
      .refine((s) => !UNSAFE_TEXT.test(s), 'content must not contain NUL or unpaired surrogate characters'),
  }),
  { error: 'history must be an array of messages' },
);

/** One earlier turn's message a caller sends with a run. */
export type HistoryMessage = z.input<typeof runHistorySchema>[number];
