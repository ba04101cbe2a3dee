import type {
  AgentRecord,
  BackgroundRun,
  FieldIssue,
  MessagePart,
  ModelInfo,
  PendingApproval,
  RunEvent,
  RunFailure,
  RunList,
  RunMetadata,
  RunResult,
  SessionInfo,
  SessionList,
  SessionMessage,
  SessionWithMessages,
  TokenUsage,
  ToolInfo,
} from '@agenthost/core';
import { z } from 'zod';
import type { WireAgentConfig, WireAgentRecord, WireAgentVersion, WireAgentVersionList } from './agent-aliases.js';
import type { ErrorEnvelope, SuccessEnvelope } from './envelope.js';
import { ERROR_CODES } from './error-codes.js';

/**
 * The zod schemas of everything the HTTP API answers, from which the OpenAPI document takes its
 * response schemas. Each named schema is in {@link responseComponents} under the name it has in the
 * document's `components.schemas`. The compile-time checks at the end keep them equal to the record
 * types of `@agenthost/core` and the envelope types.
 */
export const responseComponents = z.registry<{ id: string }>();

function component<T extends z.ZodType>(id: string, schema: T): T {
  responseComponents.add(schema, { id });
  return schema;
}

const timestamp = (what: string) =>
  z.iso.datetime({ precision: 3 }).describe(`${what}: ISO 8601 UTC with milliseconds`);

/** An agent's configuration as stored and returned. */
export const agentConfigSchema = component(
  'AgentConfig',
  z
    .object({
      agent_id: z.string().describe('The agent id, `agt_` and 22 base64url characters for agents this server made'),
      name: z.string().describe('The name, trimmed'),
      instruction: z.string().describe('The system instruction sent with every run'),
      model: z.string().describe("One of the server's model names"),
      tool: z.string().nullable().describe('The first of `tools`, or `null` when there is none (the single-tool form)'),
      tools: z
        .array(z.string())
        .describe(
          "The tool integrations the agent may call (the server's built-in, `mcp:<name>` or code-registered ones), in order",
        ),
      require_approval: z
        .array(z.string())
        .describe(
          "Which tool calls wait for a person's approval: names of the agent's tool integrations (every tool they give) or of single tools the model sees",
        ),
      component: z.string().describe("A free label for the client's UI; `Chat` unless given"),
      temperature: z.number().min(0).max(2).nullable().describe("Sampling temperature; `null` for the model's default"),
      top_p: z.number().min(0).max(1).nullable().describe("Nucleus sampling; `null` for the model's default"),
      max_output_tokens: z
        .int()
        .positive()
        .nullable()
        .describe("Most tokens an answer may have, within the server's bound; `null` for the server's bound"),
      fallback_models: z
        .array(z.string())
        .describe('Models tried in order when the model (then each one before) fails with a provider error'),
      metadata: z.record(z.string(), z.string()).describe('Free string pairs for the client (at most 16)'),
      selectedModel: z.string().describe('The same as `model` (the name the `truffle-ai` SDK reads)'),
      selectedTool: z.string().nullable().describe('The same as `tool` (the name the `truffle-ai` SDK reads)'),
    })
    .describe("An agent's configuration"),
);

/** An agent as returned by get, list, PATCH and PUT. */
export const agentRecordSchema = component(
  'AgentRecord',
  z
    .object({
      agent_id: z.string(),
      name: z.string(),
      config: agentConfigSchema,
      metadata: z.record(z.string(), z.string()).describe('The same as `config.metadata`; filter the list on it'),
      version: z.int().positive().describe('The current version: 1 when created, one more with every change'),
      created_at: timestamp('When the agent was created'),
      updated_at: timestamp('When the agent was last changed'),
    })
    .describe('An agent'),
);

/** One version of an agent. */
export const agentVersionSchema = component(
  'AgentVersion',
  z
    .object({
      agent_id: z.string(),
      version: z.int().positive(),
      config: agentConfigSchema,
      created_at: timestamp('When the agent got this configuration'),
    })
    .describe('One version of an agent: the configuration it had from `created_at` until the next version'),
);

/** The `data` of `POST /agents`. */
export const agentCreatedSchema = component(
  'AgentCreated',
  z
    .object({ agent_id: z.string().describe("The new agent's id"), created_at: timestamp('When it was created') })
    .describe('A new agent'),
);

/** The `data` of `DELETE /agents/{agentId}`. */
export const agentDeletedSchema = component(
  'AgentDeleted',
  z.object({ agent_id: z.string(), deleted: z.literal(true) }).describe('A deleted agent'),
);

/** Token counts of a run. */
export const tokenUsageSchema = component(
  'TokenUsage',
  z
    .object({
      prompt: z.int().nonnegative(),
      completion: z.int().nonnegative(),
      total: z.int().nonnegative().describe('Always `prompt + completion`'),
    })
    .describe('Token counts, summed over every model step of the run'),
);

/** What a run reports besides its output. */
export const runMetadataSchema = component(
  'RunMetadata',
  z
    .object({
      model: z.string().describe("The model that answered (a fallback model when the agent's model failed)"),
      agent_version: z.int().positive().describe('The version of the agent the run used'),
      tool_used: z.string().nullable().describe('The first tool integration the run called, else `null`'),
      tools_used: z
        .array(z.string())
        .describe('Every tool integration the run called, in the order of their first call'),
      tokens: tokenUsageSchema,
      omitted_messages: z
        .int()
        .nonnegative()
        .describe(
          "How many earlier messages of the session were left out of the prompt to fit the model's context budget (0 when none were)",
        ),
      cost: z
        .number()
        .nonnegative()
        .optional()
        .describe(
          "An estimate of the run's cost in US dollars: its tokens at the model's list price, from the model catalog (no discounts, caching or tiers). Absent when the price is not known",
        ),
    })
    .describe('What a run reports besides its output'),
);

/** A tool call that waits for a person's approval. */
export const pendingApprovalSchema = component(
  'PendingApproval',
  z
    .object({
      approval_id: z
        .string()
        .describe('Answer it with `POST /agents/{agentId}/sessions/{sessionId}/approvals/{approval_id}`'),
      tool_call_id: z.string(),
      tool_name: z.string().describe('The tool the model called, as the model sees it'),
      input: z.unknown().describe('What the model called it with'),
    })
    .describe('A tool call that waits for approval before it runs'),
);

/** The `data` of a run, and of a stream's `done` event. */
export const runResultSchema = component(
  'RunResult',
  z
    .object({
      output: z
        .string()
        .describe('The answer; JSON text for `json_mode` and `json_format` runs; the text so far when the run waits'),
      session_id: z.string().describe('The conversation the turn was stored in; pass it again to continue it'),
      status: z
        .enum(['completed', 'requires_approval'])
        .describe('`requires_approval` when the run stopped for tool calls that wait for approval'),
      pending_approvals: z
        .array(pendingApprovalSchema)
        .describe('The tool calls waiting for approval (empty when `status` is `completed`)'),
      metadata: runMetadataSchema,
    })
    .describe('The result of a run'),
);

/** Why a background run failed or was cancelled. */
export const runFailureSchema = component(
  'RunFailure',
  z
    .object({
      code: z
        .string()
        .describe(
          'A stable code: `cancelled`, `server_lost` (its server stopped or vanished), or the code a run answered as JSON would have failed with (`provider_error`, ...)',
        ),
      message: z.string().describe('For people'),
    })
    .describe('Why a background run failed or was cancelled'),
);

/** A background run, as its start, its reads and its cancel answer it. */
export const backgroundRunSchema = component(
  'BackgroundRun',
  z
    .object({
      run_id: z
        .string()
        .describe('The run id: read it with `GET /runs/{runId}`, its events with `GET /runs/{runId}/events`'),
      agent_id: z.string(),
      session_id: z.string().describe('The conversation its turn is stored in (a new one unless the body named one)'),
      status: z
        .enum(['queued', 'running', 'completed', 'failed', 'cancelled', 'requires_approval'])
        .describe(
          '`queued` (accepted, waiting for its session), `running`, or finished: `completed`, `requires_approval`, `failed`, `cancelled`',
        ),
      created_at: timestamp('When it was accepted'),
      started_at: timestamp('When it took its session').nullable(),
      finished_at: timestamp('When it finished').nullable(),
      result: runResultSchema
        .nullable()
        .describe('Once `completed` or `requires_approval`: the result a run answered as JSON returns'),
      error: runFailureSchema.nullable().describe('Once `failed` or `cancelled`: why'),
      last_event_id: z.int().nonnegative().describe('The id of its last event so far (0 before the first)'),
    })
    .describe('A background run'),
);

/** One page of an agent's background runs. */
export const runListSchema = component(
  'RunList',
  z
    .object({
      runs: z.array(backgroundRunSchema).describe('Newest first'),
      next_cursor: z
        .string()
        .nullable()
        .describe('Pass as `cursor` for the next (older) page; `null` on the last page'),
    })
    .describe("One page of an agent's background runs"),
);

const media = {
  media_type: z.string().describe('The IANA media type, e.g. `image/png`'),
  url: z.string().optional().describe('Where it is (https); absent when `data` is given'),
  data: z.string().optional().describe('Its bytes, base64; absent when `url` is given'),
};

/** One typed part of a message. */
export const messagePartSchema = component(
  'MessagePart',
  z
    .discriminatedUnion('type', [
      z.object({ type: z.literal('text'), text: z.string() }).describe('Text'),
      z.object({ type: z.literal('image'), ...media }).describe("An image of the user's input"),
      z
        .object({ type: z.literal('file'), ...media, filename: z.string().optional() })
        .describe("A file of the user's input"),
      z
        .object({
          type: z.literal('tool-call'),
          tool_call_id: z.string(),
          tool_name: z.string(),
          input: z.unknown(),
        })
        .describe('A tool call the model made'),
      z
        .object({
          type: z.literal('tool-result'),
          tool_call_id: z.string(),
          tool_name: z.string(),
          output: z.unknown(),
          is_error: z.boolean().optional().describe('`true` when the tool failed or the call was denied'),
        })
        .describe('What a tool call returned'),
      z
        .object({ type: z.literal('tool-approval-request'), approval_id: z.string(), tool_call_id: z.string() })
        .describe('A tool call waited for approval'),
      z
        .object({
          type: z.literal('tool-approval-response'),
          approval_id: z.string(),
          approved: z.boolean(),
          reason: z.string().optional(),
        })
        .describe("A person's answer to an approval request"),
    ])
    .describe('One part of a message, in the order it happened'),
);

/** One message of a conversation. */
export const sessionMessageSchema = component(
  'SessionMessage',
  z
    .object({
      role: z.enum(['user', 'assistant']),
      content: z.string().describe("The message's text (an assistant's final text)"),
      parts: z
        .array(messagePartSchema)
        .optional()
        .describe(
          "All of the message in order: a user's text, images and files; an assistant's tool calls, results, approvals and text. Always sent (a text-only message has one text part)",
        ),
      created_at: timestamp('When it was stored'),
    })
    .describe('One message of a conversation'),
);

/** A conversation without its messages. */
export const sessionInfoSchema = component(
  'SessionInfo',
  z
    .object({
      session_id: z.string(),
      created_at: timestamp('When its first message was stored'),
      updated_at: timestamp('When its last message was stored'),
      message_count: z.int().nonnegative(),
    })
    .describe('A conversation, without its messages'),
);

const nextCursor = z.string().nullable().describe('Pass as `cursor` for the next page; `null` on the last page');

/** The `data` of `GET /agents/{agentId}/sessions`. */
export const sessionListSchema = component(
  'SessionList',
  z
    .object({ sessions: z.array(sessionInfoSchema).describe('Newest (first stored) first'), next_cursor: nextCursor })
    .describe("One page of an agent's sessions"),
);

/** The `data` of `GET /agents/{agentId}/sessions/{sessionId}`. */
export const sessionWithMessagesSchema = component(
  'SessionWithMessages',
  z
    .object({
      session_id: z.string(),
      created_at: timestamp('When its first message was stored'),
      updated_at: timestamp('When its last message was stored'),
      message_count: z.int().nonnegative(),
      pending_approvals: z
        .array(pendingApprovalSchema)
        .describe("Tool calls of the session's last turn that wait for approval; empty when none"),
      messages: z.array(sessionMessageSchema).describe('One page of the messages, oldest first'),
      next_cursor: nextCursor,
    })
    .describe('A conversation with one page of its messages'),
);

/** The `data` of `DELETE /agents/{agentId}/sessions/{sessionId}`. */
export const sessionDeletedSchema = component(
  'SessionDeleted',
  z.object({ session_id: z.string(), deleted: z.literal(true) }).describe('A deleted session'),
);

/** What is known of an offered model. */
export const modelInfoSchema = component(
  'ModelInfo',
  z
    .object({
      name: z
        .string()
        .describe(
          "The name to give an agent's `model`: `provider/model`, or a bare name such as `echo`; `provider/*` stands for an endpoint that takes any model id under its name",
        ),
      provider: z
        .string()
        .describe(
          'The provider that serves it: `openai`, `anthropic`, `google`, a configured OpenAI-compatible endpoint, `agenthost` (the echo model), or the part before `/` of a model from a provider plugged in code (`custom` when the name has none)',
        ),
      context_window: z.int().positive().optional().describe('Its context window, in tokens, when known'),
      price: z
        .object({ input_per_mtok: z.number().nonnegative(), output_per_mtok: z.number().nonnegative() })
        .optional()
        .describe('Its list price in US dollars per million input and output tokens, when known'),
      input: z
        .array(z.enum(['text', 'image', 'file']))
        .readonly()
        .optional()
        .describe(
          "What it reads in a run's input: `text`, and `image` and `file` when it reads them; absent means text only",
        ),
    })
    .describe('An offered model'),
);

/** An offered tool integration. */
export const toolInfoSchema = component(
  'ToolInfo',
  z
    .object({ name: z.string().describe("The name to give an agent's `tool`"), description: z.string() })
    .describe('An offered tool integration'),
);

/** One offending field of a rejected request. */
export const fieldIssueSchema = component(
  'FieldIssue',
  z
    .object({
      message: z.string(),
      path: z.array(z.union([z.string(), z.number()])).describe('Where the problem is, starting with the field name'),
    })
    .describe('One offending field'),
);

/** Every error answer: `status` is the HTTP status. */
export const errorEnvelopeSchema = component(
  'ErrorEnvelope',
  z
    .object({
      success: z.literal(false),
      error: z.string().describe('A message for people; `Invalid request format` for validation errors'),
      code: z
        .enum(ERROR_CODES as [ErrorEnvelope['code'], ...ErrorEnvelope['code'][]])
        .describe('What went wrong, for programs: stable when the message changes (see the API reference for each)'),
      details: z
        .record(z.string(), fieldIssueSchema)
        .optional()
        .describe(
          'For validation errors only: one entry per offending top-level field (`request` when the body as a whole is wrong)',
        ),
      status: z.int().min(400).max(599).describe('The HTTP status of the response'),
    })
    .describe('An error'),
);

/** The success envelope around `data`. */
export function successEnvelopeSchema<T extends z.ZodType>(data: T) {
  return z.object({ success: z.literal(true), data, status: z.literal(200) });
}

/** The envelope of a 202: a background run accepted. */
export function acceptedEnvelopeSchema<T extends z.ZodType>(data: T) {
  return z.object({ success: z.literal(true), data, status: z.literal(202) });
}

/** `POST /agents`. */
export const agentCreatedResponseSchema = component('AgentCreatedResponse', successEnvelopeSchema(agentCreatedSchema));
/** `GET`, `PATCH` and `PUT /agents/{agentId}`. */
export const agentResponseSchema = component('AgentResponse', successEnvelopeSchema(agentRecordSchema));
/** `GET /agents`. */
export const agentListResponseSchema = component(
  'AgentListResponse',
  successEnvelopeSchema(z.array(agentRecordSchema)),
);
/** The `data` of `GET /agents/{agentId}/versions`. */
export const agentVersionListSchema = component(
  'AgentVersionList',
  z
    .object({ versions: z.array(agentVersionSchema).describe('Newest first'), next_cursor: z.string().nullable() })
    .describe("One page of an agent's versions"),
);
/** `GET /agents/{agentId}/versions/{version}`. */
export const agentVersionResponseSchema = component('AgentVersionResponse', successEnvelopeSchema(agentVersionSchema));
/** `GET /agents/{agentId}/versions`. */
export const agentVersionListResponseSchema = component(
  'AgentVersionListResponse',
  successEnvelopeSchema(agentVersionListSchema),
);
/** `DELETE /agents/{agentId}`. */
export const agentDeletedResponseSchema = component('AgentDeletedResponse', successEnvelopeSchema(agentDeletedSchema));
/** `POST /agents/{agentId}/run` answered as JSON. */
export const runResponseSchema = component('RunResponse', successEnvelopeSchema(runResultSchema));
/** The `data` of a chat answered as JSON: the reply, its session and the run's metadata. */
const chatReplySchema = component(
  'ChatReply',
  z
    .object({
      message: z.string().describe("The agent's reply"),
      session_id: z.string(),
      status: runResultSchema.shape.status,
      pending_approvals: runResultSchema.shape.pending_approvals,
      metadata: runMetadataSchema,
    })
    .describe('The reply of a chat'),
);
/** `POST /agents/{agentId}/chat` answered as JSON: `message` and `session_id` also at the top, where the `truffle-ai` SDK reads them. */
export const chatResponseSchema = component(
  'ChatResponse',
  successEnvelopeSchema(chatReplySchema).extend({
    message: z.string().describe('The same as `data.message`'),
    session_id: z.string().describe('The same as `data.session_id`'),
  }),
);
/** `POST /agents/{agentId}/run` and `/chat` with `"background": true`: the run, accepted (202). */
export const backgroundRunAcceptedSchema = component(
  'BackgroundRunAccepted',
  acceptedEnvelopeSchema(backgroundRunSchema),
);
/** `GET /runs/{runId}` and `POST /runs/{runId}/cancel`. */
export const backgroundRunResponseSchema = component(
  'BackgroundRunResponse',
  successEnvelopeSchema(backgroundRunSchema),
);
/** `GET /agents/{agentId}/runs`. */
export const runListResponseSchema = component('RunListResponse', successEnvelopeSchema(runListSchema));
/** `GET /agents/{agentId}/sessions`. */
export const sessionListResponseSchema = component('SessionListResponse', successEnvelopeSchema(sessionListSchema));
/** `GET /agents/{agentId}/sessions/{sessionId}`. */
export const sessionResponseSchema = component('SessionResponse', successEnvelopeSchema(sessionWithMessagesSchema));
/** `DELETE /agents/{agentId}/sessions/{sessionId}`. */
export const modelListResponseSchema = component('ModelListResponse', successEnvelopeSchema(z.array(modelInfoSchema)));

export const toolListResponseSchema = component('ToolListResponse', successEnvelopeSchema(z.array(toolInfoSchema)));

export const sessionDeletedResponseSchema = component(
  'SessionDeletedResponse',
  successEnvelopeSchema(sessionDeletedSchema),
);

const toolEvent = { tool_call_id: z.string(), tool_name: z.string() };

/** The `data` of each server-sent event of a streamed run, by event name. */
export const streamEventSchemas = {
  'text-delta': component(
    'TextDeltaEvent',
    z.object({ delta: z.string() }).describe('`text-delta`: the next piece of the answer'),
  ),
  'tool-call': component(
    'ToolCallEvent',
    z.object({ ...toolEvent, input: z.unknown() }).describe('`tool-call`: the model called a tool'),
  ),
  'tool-result': component(
    'ToolResultEvent',
    z.object({ ...toolEvent, output: z.unknown() }).describe('`tool-result`: what the tool returned'),
  ),
  'tool-error': component(
    'ToolErrorEvent',
    z
      .object({ ...toolEvent, error: z.string() })
      .describe('`tool-error`: the tool failed; the model is told and goes on'),
  ),
  'approval-request': component(
    'ApprovalRequestEvent',
    pendingApprovalSchema.describe(
      '`approval-request`: a tool call waits for approval; the run ends with `done` (`status` `requires_approval`)',
    ),
  ),
  done: runResultSchema,
  error: errorEnvelopeSchema,
  run: backgroundRunSchema,
} as const;

// Compile-time checks: each schema's type is exactly the type the code returns.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Assert<T extends true> = T;
type EventData<K extends RunEvent['type']> = Omit<Extract<RunEvent, { type: K }>, 'type'>;

/** Fails to compile when a response schema and the type it describes drift apart. */
export type ResponseSchemasMatchTypes = [
  Assert<Same<z.infer<typeof agentConfigSchema>, WireAgentConfig>>,
  Assert<Same<z.infer<typeof agentRecordSchema>, WireAgentRecord>>,
  Assert<Same<z.infer<typeof agentVersionSchema>, WireAgentVersion>>,
  Assert<Same<z.infer<typeof agentVersionListSchema>, WireAgentVersionList>>,
  Assert<Same<z.infer<typeof agentCreatedSchema>, Pick<AgentRecord, 'agent_id' | 'created_at'>>>,
  Assert<Same<z.infer<typeof tokenUsageSchema>, TokenUsage>>,
  Assert<Same<z.infer<typeof runMetadataSchema>, RunMetadata>>,
  Assert<Same<z.infer<typeof runResultSchema>, RunResult>>,
  Assert<Same<z.infer<typeof runFailureSchema>, RunFailure>>,
  Assert<Same<z.infer<typeof backgroundRunSchema>, BackgroundRun>>,
  Assert<Same<z.infer<typeof runListSchema>, RunList>>,
  Assert<Same<z.infer<typeof pendingApprovalSchema>, PendingApproval>>,
  Assert<Same<z.infer<typeof messagePartSchema>, MessagePart>>,
  Assert<Same<z.infer<typeof sessionMessageSchema>, SessionMessage>>,
  Assert<Same<z.infer<typeof sessionInfoSchema>, SessionInfo>>,
  Assert<Same<z.infer<typeof sessionListSchema>, SessionList>>,
  Assert<Same<z.infer<typeof sessionWithMessagesSchema>, SessionWithMessages>>,
  Assert<Same<z.infer<typeof fieldIssueSchema>, FieldIssue>>,
  Assert<Same<z.infer<typeof modelInfoSchema>, ModelInfo>>,
  Assert<Same<z.infer<typeof toolInfoSchema>, ToolInfo>>,
  Assert<Same<z.infer<typeof errorEnvelopeSchema>, ErrorEnvelope>>,
  Assert<Same<z.infer<(typeof streamEventSchemas)['text-delta']>, EventData<'text-delta'>>>,
  Assert<Same<z.infer<(typeof streamEventSchemas)['tool-call']>, EventData<'tool-call'>>>,
  Assert<Same<z.infer<(typeof streamEventSchemas)['tool-result']>, EventData<'tool-result'>>>,
  Assert<Same<z.infer<(typeof streamEventSchemas)['tool-error']>, EventData<'tool-error'>>>,
  Assert<Same<z.infer<(typeof streamEventSchemas)['approval-request']>, EventData<'approval-request'>>>,
  Assert<z.infer<typeof agentListResponseSchema> extends SuccessEnvelope<WireAgentRecord[]> ? true : false>,
  Assert<z.infer<typeof runResponseSchema> extends SuccessEnvelope<RunResult> ? true : false>,
  Assert<z.infer<typeof backgroundRunAcceptedSchema> extends SuccessEnvelope<BackgroundRun> ? true : false>,
];
