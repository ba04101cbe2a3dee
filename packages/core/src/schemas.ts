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

// A character `trim()` would keep: what a text that is not blank has (tested without copying the text).
const NOT_BLANK = /\S/;

function text(field: string, max: number) {
  return z
    .string({ error: (issue) => (issue.input === undefined ? `${field} is required` : `${field} must be a string`) })
    .max(max, `${field} must be at most ${max} characters`)
    .refine((s) => NOT_BLANK.test(s), `${field} must not be blank`)
    .refine((s) => !UNSAFE_TEXT.test(s), `${field} must not contain NUL or unpaired surrogate characters`);
}

/** Most tools an agent may have. */
export const MAX_TOOLS = 16;
/** Most fallback models an agent may have. */
export const MAX_FALLBACK_MODELS = 3;
/** Most metadata pairs an agent may have. */
export const MAX_METADATA_PAIRS = 16;
/** Most characters of a metadata key. */
export const MAX_METADATA_KEY_LENGTH = 64;
/** Most characters of a metadata value. */
export const MAX_METADATA_VALUE_LENGTH = 512;
/** Metadata keys: letters, digits, `_`, `-`, `.` and `:`, starting with a letter or digit. */
export const METADATA_KEY_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,63}$/;

/** `"none"`, `"None"`, `""` and `null` mean no tool. */
const toolName = z
  .string({ error: 'tool must be a string or null' })
  .max(MAX_NAME_LENGTH, `tool must be at most ${MAX_NAME_LENGTH} characters`)
  .nullish()
  .transform((t) => {
    const v = t?.trim();
    return !v || v.toLowerCase() === 'none' ? null : v;
  });

/** A list of names; `null` means none (an update's `null` clears the list). */
const nameList = (field: string, max: number) =>
  z
    .array(
      text(field, MAX_NAME_LENGTH).transform((s) => s.trim()),
      { error: `${field} must be a list of names or null` },
    )
    .max(max, `${field} may name at most ${max}`)
    .refine((names) => new Set(names).size === names.length, `${field} must not name one twice`)
    .nullish()
    .transform((names) => (names === null ? [] : names));

const metadataSchema = z
  .record(
    z.string().regex(METADATA_KEY_PATTERN, 'metadata keys are 1 to 64 letters, digits, "_", "-", "." or ":"'),
    z
      .string({ error: 'metadata values must be strings' })
      .max(MAX_METADATA_VALUE_LENGTH, `metadata values must be at most ${MAX_METADATA_VALUE_LENGTH} characters`)
      .refine((s) => !UNSAFE_TEXT.test(s), 'metadata values must not contain NUL or unpaired surrogate characters'),
    { error: 'metadata must be an object of string values, or null' },
  )
  .refine((m) => Object.keys(m).length <= MAX_METADATA_PAIRS, `metadata may have at most ${MAX_METADATA_PAIRS} pairs`)
  // `null` means no pairs (an update's `null` clears them).
  .nullish()
  .transform((m): Record<string, string> | undefined => (m === null ? {} : m));

/** The agent fields besides name, instruction and model, each optional: create and update read them alike. */
const agentSettingFields = {
  tool: toolName,
  tools: nameList('tools', MAX_TOOLS),
  require_approval: nameList('require_approval', MAX_TOOLS * 4),
  component: text('component', MAX_NAME_LENGTH)
    .transform((s) => s.trim())
    .optional(),
  temperature: z.number({ error: 'temperature must be a number from 0 to 2' }).min(0).max(2).nullish(),
  top_p: z.number({ error: 'top_p must be a number from 0 to 1' }).min(0).max(1).nullish(),
  max_output_tokens: z
    .number({ error: 'max_output_tokens must be a whole number of at least 1' })
    .int('max_output_tokens must be a whole number of at least 1')
    .min(1, 'max_output_tokens must be a whole number of at least 1')
    .nullish(),
  fallback_models: nameList('fallback_models', MAX_FALLBACK_MODELS),
  metadata: metadataSchema,
};

/**
 * Input of `createAgent`. Unknown fields (including server-owned ones such as `agent_id` or
 * `created_at`) are dropped. `tool` of `"none"`/`"None"`/`""` means no tool; `tool` and `tools` are
 * two forms of one field (when both are given, `tool` must be the first of `tools`).
 */
export const createAgentInputSchema = z.object({
  name: text('name', MAX_NAME_LENGTH).transform((s) => s.trim()),
  instruction: text('instruction', MAX_INSTRUCTION_LENGTH),
  model: text('model', MAX_NAME_LENGTH).transform((s) => s.trim()),
  ...agentSettingFields,
});

/** What a caller passes to `createAgent`. */
export type CreateAgentInput = z.input<typeof createAgentInputSchema>;

/**
 * Input of `updateAgent`: any of the create fields, each validated as on create. Fields not given
 * keep their value; `null` clears a setting (`tool`, `tools`, `require_approval` and
 * `fallback_models` become empty lists, `metadata` no pairs, a number the model's default).
 * Server-owned fields are dropped.
 */
export const updateAgentInputSchema = z.object({
  name: text('name', MAX_NAME_LENGTH)
    .transform((s) => s.trim())
    .optional(),
  instruction: text('instruction', MAX_INSTRUCTION_LENGTH).optional(),
  model: text('model', MAX_NAME_LENGTH)
    .transform((s) => s.trim())
    .optional(),
  ...agentSettingFields,
  // Absent keeps the tools; `null` (or "none") clears them.
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
});

/** What a caller passes to `updateAgent`. */
export type UpdateAgentInput = z.input<typeof updateAgentInputSchema>;

/** Most parts a run input may have. */
export const MAX_INPUT_PARTS = 16;
/** Most bytes of one image or file sent as data (decoded). */
export const MAX_INPUT_FILE_BYTES = 5 * 1024 * 1024;
/** Most bytes of all the images and files of one input sent as data (decoded). */
export const MAX_INPUT_FILES_BYTES = 10 * 1024 * 1024;
/** Image types a run input may carry. */
export const IMAGE_MEDIA_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'] as const;
/** File types a run input may carry. */
export const FILE_MEDIA_TYPES = [
  'application/pdf',
  'text/plain',
  'text/markdown',
  'text/csv',
  'application/json',
] as const;

const base64 = z
  .string({ error: 'data must be base64 text' })
  .max(Math.ceil(MAX_INPUT_FILE_BYTES / 3) * 4, `data must be at most ${MAX_INPUT_FILE_BYTES} bytes`)
  .regex(/^[A-Za-z0-9+/]*={0,2}$/, 'data must be base64 text');
const httpsUrl = z
  .string({ error: 'url must be a string' })
  .max(2048, 'url must be at most 2048 characters')
  .url({ protocol: /^https$/, error: 'url must be an https URL' });

/**
 * One part of a run input: text, an image or a file, the bytes by `url` (https) or as base64 `data`
 * (one of the two). Media types are checked against the bytes when `data` is given.
 */
export const inputPartSchema = z.discriminatedUnion(
  'type',
  [
    z.object({ type: z.literal('text'), text: text('text', MAX_INPUT_LENGTH) }),
    z.object({
      type: z.literal('image'),
      media_type: z.enum(IMAGE_MEDIA_TYPES, { error: `media_type must be one of ${IMAGE_MEDIA_TYPES.join(', ')}` }),
      url: httpsUrl.optional(),
      data: base64.optional(),
    }),
    z.object({
      type: z.literal('file'),
      media_type: z.enum(FILE_MEDIA_TYPES, { error: `media_type must be one of ${FILE_MEDIA_TYPES.join(', ')}` }),
      filename: text('filename', MAX_NAME_LENGTH).optional(),
      url: httpsUrl.optional(),
      data: base64.optional(),
    }),
  ],
  { error: 'each part must have type "text", "image" or "file"' },
);

/** A run input as parts; a list of at most {@link MAX_INPUT_PARTS}, with at least one. */
export const inputPartsSchema = z
  .array(inputPartSchema, { error: 'input must be a string or a list of parts' })
  .min(1, 'input must have at least one part')
  .max(MAX_INPUT_PARTS, `input may have at most ${MAX_INPUT_PARTS} parts`);

/** One part of a run input, as a caller sends it. */
export type InputPart = z.input<typeof inputPartSchema>;

/** A run's `version`: the agent's version to run on, a whole number of at least 1; absent or `null` for the current one. */
export const runVersionSchema = z
  .number({ error: 'version must be a whole number of at least 1' })
  .int('version must be a whole number of at least 1')
  .min(1, 'version must be a whole number of at least 1')
  .nullish();

/** A run's `session_id`: a client-chosen id ({@link SESSION_ID_PATTERN}); absent or `null` starts a new session. */
export const runSessionIdSchema = z
  .string({ error: 'session_id must be a string' })
  .regex(SESSION_ID_PATTERN, 'session_id must be 1 to 128 characters of letters, digits, ".", "_", ":" or "-"')
  .nullish();

/**
 * The fields of a run input, before the rules that join them: an object schema a transport can
 * `.extend()` with fields of its own (the HTTP adapter's `stream`) and read with {@link withRunRules}.
 */
export const runAgentFieldsSchema = z.object({
  input: z
    .union([text('input', MAX_INPUT_LENGTH), inputPartsSchema], {
      error: 'input must be a string or a list of parts (text, image, file)',
    })
    .optional(),
  input_data: text('input_data', MAX_INPUT_LENGTH).optional(),
  version: runVersionSchema,
  session_id: runSessionIdSchema,
  json_mode: z.boolean({ error: 'json_mode must be true or false' }).nullish(),
  json_format: z
    .union([z.record(z.string(), z.unknown()), z.string()], {
      error: 'json_format must be a JSON Schema object or its JSON text',
    })
    .nullish(),
});

/** What {@link withRunRules} makes of `Fields`' output: `input` always set, `input_data` gone. */
export type WithRunRules<Fields> = Omit<Fields, 'input' | 'input_data'> & {
  input: NonNullable<z.output<typeof runAgentFieldsSchema>['input']>;
};

/**
 * A run input schema over `fields` (the run's fields, maybe with a transport's own): `input` is
 * required, and `input_data` is read as `input` when `input` is not given.
 *
 * The rules are a `refine` and an `overwrite` check, not zod's `superRefine` and `transform`: those
 * two give every parse's payload an `addIssue` closure of its own, a property V8 adds after the payload
 * was made, and on Node 24 that kept each parsed input alive through young-generation collections (a
 * loop of parses promoted about 8 MB to the old generation at every collection, against 0.1 MB
 * without them; docs/performance.md, "Memory").
 */
export function withRunRules<T extends z.ZodType<z.output<typeof runAgentFieldsSchema>>>(fields: T) {
  const joined = fields
    .refine((value) => value.input !== undefined || value.input_data !== undefined, {
      message: 'input is required',
      path: ['input'],
      // A missing input stops the parse: the overwrite, and a caller's checks chained on the schema, never see it.
      abort: true,
    })
    .overwrite(({ input, input_data, ...rest }) => ({ ...rest, input: input ?? input_data }) as z.output<T>);
  return joined as unknown as z.ZodType<WithRunRules<z.output<T>>, z.input<T>>;
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

/**
 * A person's answer to a tool call that waits for approval (`respondToApproval`): `approve` true runs
 * the tool, false denies it; `reason` is passed on to the model (and kept in the session).
 */
export const approvalResponseSchema = z.object({
  approve: z.boolean({ error: 'approve must be true or false' }),
  reason: z
    .string({ error: 'reason must be a string' })
    .max(2000, 'reason must be at most 2000 characters')
    .refine((s) => !UNSAFE_TEXT.test(s), 'reason must not contain NUL or unpaired surrogate characters')
    .optional(),
});

/** What a caller passes to `respondToApproval`. */
export type ApprovalResponseInput = z.input<typeof approvalResponseSchema>;

/** One earlier turn's message a caller sends with a run. */
export type HistoryMessage = z.input<typeof runHistorySchema>[number];
