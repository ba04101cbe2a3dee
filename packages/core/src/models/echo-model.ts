import type {
  LanguageModelV3,
  LanguageModelV3CallOptions,
  LanguageModelV3GenerateResult,
  LanguageModelV3Prompt,
  LanguageModelV3StreamPart,
  LanguageModelV3StreamResult,
  LanguageModelV3Usage,
} from '@ai-sdk/provider';

/** The name the echo model is offered under. */
export const ECHO_MODEL_NAME = 'echo';

// Tokens for the echo model: words and single punctuation marks, plus a fixed cost per message (as
// chat formats add role markers). Deterministic, and grows with everything in the prompt.
const TOKEN = /[\p{L}\p{N}_]+|[^\s\p{L}\p{N}_]/gu;
const PER_MESSAGE = 3;

/** Counts echo-model tokens in a text. */
export function countEchoTokens(text: string): number {
  return text.match(TOKEN)?.length ?? 0;
}

function messageText(message: LanguageModelV3Prompt[number]): string {
  if (typeof message.content === 'string') return message.content;
  return message.content
    .map((part) => {
      if (part.type === 'text' || part.type === 'reasoning') return part.text;
      if (part.type === 'tool-call') return JSON.stringify(part.input ?? null);
      if (part.type === 'tool-result') return JSON.stringify(part.output);
      return '';
    })
    .join(' ');
}

function usage(prompt: LanguageModelV3Prompt, reply: string): LanguageModelV3Usage {
  const input = prompt.reduce((sum, m) => sum + PER_MESSAGE + countEchoTokens(messageText(m)), 0);
  const output = countEchoTokens(reply);
  return {
    inputTokens: { total: input, noCache: input, cacheRead: 0, cacheWrite: 0 },
    outputTokens: { total: output, text: output, reasoning: 0 },
  };
}

type Schema = {
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  enum?: unknown[];
  const?: unknown;
  anyOf?: Schema[];
  oneOf?: Schema[];
  minimum?: number;
  minItems?: number;
};

/** Bounds of the values the echo model builds: a schema cannot make it build something huge. */
const MAX_ITEMS = 16;
const MAX_DEPTH = 16;

/**
 * A small value that satisfies a JSON Schema of the common shapes, with `text` for strings. Arrays get
 * at most 16 items and nesting stops at 16 levels, so a schema asking for more is not satisfied
 * (the run then fails as a model answer that does not match) rather than exhausting memory.
 */
function instanceOf(schema: Schema | undefined, text: string, depth = 0): unknown {
  if (depth > MAX_DEPTH) return null;
  if (!schema || typeof schema !== 'object') return { echo: text };
  if ('const' in schema) return schema.const;
  if (schema.enum?.length) return schema.enum[0];
  const alternative = schema.anyOf?.[0] ?? schema.oneOf?.[0];
  if (alternative) return instanceOf(alternative, text, depth + 1);
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case 'string':
      return text;
    case 'number':
    case 'integer':
      return schema.minimum ?? 0;
    case 'boolean':
      return false;
    case 'null':
      return null;
    case 'array':
      return Array.from({ length: Math.min(Math.max(0, Number(schema.minItems) || 0), MAX_ITEMS) }, () => instanceOf(schema.items, text, depth + 1));
    default:
      return Object.fromEntries(Object.entries(schema.properties ?? {}).map(([key, property]) => [key, instanceOf(property, text, depth + 1)]));
  }
}

function replyTo(prompt: LanguageModelV3Prompt, format: LanguageModelV3CallOptions['responseFormat']): string {
  const lastUser = [...prompt].reverse().find((m) => m.role === 'user');
  const said = lastUser ? messageText(lastUser) : '';
  if (format?.type === 'json') return JSON.stringify(format.schema ? instanceOf(format.schema as Schema, said) : { echo: said });
  return `Echo: ${said}`;
}

/**
 * An offline development model: it answers `Echo: <the last user message>` and counts usage over the
 * whole prompt (instruction, history and input), so a longer conversation costs more prompt tokens,
 * as with a real model. Asked for JSON, it answers `{"echo": <message>}`, or with a JSON Schema, a
 * small value that satisfies it (strings hold the message). It calls no tools and needs no network or key. Use it for development,
 * demos and tests; it is not a language model in any useful sense.
 */
export class EchoLanguageModel implements LanguageModelV3 {
  readonly specificationVersion = 'v3';
  readonly provider = 'agenthost';
  readonly modelId: string;
  readonly supportedUrls = {};

  constructor(modelId: string = ECHO_MODEL_NAME) {
    this.modelId = modelId;
  }

  async doGenerate(options: LanguageModelV3CallOptions): Promise<LanguageModelV3GenerateResult> {
    options.abortSignal?.throwIfAborted();
    const text = replyTo(options.prompt, options.responseFormat);
    return {
      content: [{ type: 'text', text }],
      finishReason: { unified: 'stop', raw: 'stop' },
      usage: usage(options.prompt, text),
      warnings: [],
      response: { modelId: this.modelId, timestamp: new Date(0) },
    };
  }

  async doStream(options: LanguageModelV3CallOptions): Promise<LanguageModelV3StreamResult> {
    options.abortSignal?.throwIfAborted();
    const text = replyTo(options.prompt, options.responseFormat);
    const parts: LanguageModelV3StreamPart[] = [
      { type: 'stream-start', warnings: [] },
      { type: 'text-start', id: 't0' },
      ...(text.match(/\S+\s*/g) ?? []).map((delta): LanguageModelV3StreamPart => ({ type: 'text-delta', id: 't0', delta })),
      { type: 'text-end', id: 't0' },
      { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage: usage(options.prompt, text) },
    ];
    return {
      stream: new ReadableStream<LanguageModelV3StreamPart>({
        start(controller) {
          for (const part of parts) controller.enqueue(part);
          controller.close();
        },
      }),
    };
  }
}
