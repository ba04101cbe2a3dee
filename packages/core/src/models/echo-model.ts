import type {
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4GenerateResult,
  LanguageModelV4Prompt,
  LanguageModelV4StreamPart,
  LanguageModelV4StreamResult,
  LanguageModelV4Usage,
} from '@ai-sdk/provider';
import { DEFAULT_MAX_OUTPUT_TOKENS } from '../run-limits.js';
import { runContext } from '../runs/run-context.js';
import { ANSWER_CHARS_PER_TOKEN } from '../structured-output/json-format.js';
import { type SchemaSandbox, sharedSchemaSandbox } from '../structured-output/schema-sandbox.js';
import { echoJson } from './echo-json.js';
import { countEchoTokens, firstEchoTokens } from './echo-tokens.js';

/** The name the echo model is offered under. */
export const ECHO_MODEL_NAME = 'echo';
/** The context window the echo model claims, small enough that conversations soon reach it. */
export const ECHO_CONTEXT_WINDOW = 8_192;

// Tokens for the echo model: words and single punctuation marks, plus a fixed cost per message (as
// chat formats add role markers). Deterministic, and grows with everything in the prompt.
const PER_MESSAGE = 3;

function messageText(message: LanguageModelV4Prompt[number]): string {
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

function usage(prompt: LanguageModelV4Prompt, reply: string): LanguageModelV4Usage {
  const input = prompt.reduce((sum, m) => sum + PER_MESSAGE + countEchoTokens(messageText(m)), 0);
  const output = countEchoTokens(reply);
  return {
    inputTokens: { total: input, noCache: input, cacheRead: 0, cacheWrite: 0 },
    outputTokens: { total: output, text: output, reasoning: 0 },
  };
}

const finish = (cut: boolean) =>
  cut ? { unified: 'length' as const, raw: 'length' } : { unified: 'stop' as const, raw: 'stop' };

/** The echo model's answer: the last user message, echoed or put into JSON, within the output limit. */
async function replyTo(
  options: LanguageModelV4CallOptions,
  own: SchemaSandbox | undefined,
): Promise<{ text: string; cut: boolean }> {
  const lastUser = [...options.prompt].reverse().find((m) => m.role === 'user');
  const said = lastUser ? messageText(lastUser) : '';
  const maxTokens = options.maxOutputTokens ?? DEFAULT_MAX_OUTPUT_TOKENS;
  const format = options.responseFormat;
  if (format?.type === 'json') {
    // Patterns are checked in the sandbox of the run's service, in the run's account's turn.
    const run = runContext();
    const checks = { sandbox: own ?? run?.sandbox ?? sharedSchemaSandbox(), accountId: run?.accountId ?? '' };
    const text = format.schema
      ? await echoJson(format.schema, said, maxTokens * ANSWER_CHARS_PER_TOKEN, checks)
      : JSON.stringify({ echo: firstEchoTokens(said, maxTokens - 8).text });
    return { text, cut: false };
  }
  return firstEchoTokens(`Echo: ${said}`, maxTokens);
}

/**
 * An offline development model: it answers `Echo: <the last user message>` and counts usage over the
 * whole prompt (instruction, history and input), so a longer conversation costs more prompt tokens,
 * as with a real model. Asked for JSON, it answers `{"echo": <message>}`, or with a JSON Schema, a
 * small value that satisfies it (strings hold the message; a message that cannot fill a string, by
 * its `minLength` or `pattern`, is an `InvalidInputError`). Like any model it stops at
 * `maxOutputTokens` (finish reason `length`). It calls no tools and needs no network or key. Use it
 * for development, demos and tests; it is not a language model in any useful sense.
 */
export class EchoLanguageModel implements LanguageModelV4 {
  readonly specificationVersion = 'v4';
  readonly provider = 'agenthost';
  readonly modelId: string;
  readonly supportedUrls = {};
  readonly #sandbox: SchemaSandbox | undefined;

  /** @param options.sandbox where it checks patterns of JSON schemas (default: the running service's, else the process's shared sandbox) */
  constructor(modelId: string = ECHO_MODEL_NAME, options: { sandbox?: SchemaSandbox } = {}) {
    this.modelId = modelId;
    this.#sandbox = options.sandbox;
  }

  async doGenerate(options: LanguageModelV4CallOptions): Promise<LanguageModelV4GenerateResult> {
    options.abortSignal?.throwIfAborted();
    const { text, cut } = await replyTo(options, this.#sandbox);
    return {
      content: [{ type: 'text', text }],
      finishReason: finish(cut),
      usage: usage(options.prompt, text),
      warnings: [],
      response: { modelId: this.modelId, timestamp: new Date(0) },
    };
  }

  async doStream(options: LanguageModelV4CallOptions): Promise<LanguageModelV4StreamResult> {
    options.abortSignal?.throwIfAborted();
    const { text, cut } = await replyTo(options, this.#sandbox);
    const parts: LanguageModelV4StreamPart[] = [
      { type: 'stream-start', warnings: [] },
      { type: 'text-start', id: 't0' },
      ...(text.match(/\S+\s*/g) ?? []).map(
        (delta): LanguageModelV4StreamPart => ({ type: 'text-delta', id: 't0', delta }),
      ),
      { type: 'text-end', id: 't0' },
      { type: 'finish', finishReason: finish(cut), usage: usage(options.prompt, text) },
    ];
    return {
      stream: new ReadableStream<LanguageModelV4StreamPart>({
        start(controller) {
          for (const part of parts) controller.enqueue(part);
          controller.close();
        },
      }),
    };
  }
}
