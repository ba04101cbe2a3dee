import type {
  LanguageModelV4CallOptions,
  LanguageModelV4GenerateResult,
  LanguageModelV4Prompt,
  LanguageModelV4StreamPart,
  LanguageModelV4Usage,
} from '@ai-sdk/provider';
import { convertArrayToReadableStream, MockLanguageModelV4 } from 'ai/test';
import type { ChatModel, ModelInfo, ModelProvider } from '../ports/model-provider.js';

/** What a mock model was asked, in plain text. */
export interface MockPrompt {
  /** The agent's instruction (the system prompt). */
  instruction: string | undefined;
  /** The conversation sent after the instruction: the session's earlier turns, then the input, each as text. */
  messages: { role: 'user' | 'assistant' | 'tool'; content: string }[];
  /** The text of the last user message: the run's input. */
  input: string;
  /**
   * The images and files of the conversation, in order (only when it has any): each one's media type,
   * and its URL or how many bytes it holds.
   */
  files?: MockFile[];
}

/** An image or file a mock model was sent. */
export interface MockFile {
  media_type: string;
  url?: string;
  bytes?: number;
}

/** The images and files of a prompt, in order. */
function filesOf(prompt: LanguageModelV4Prompt): MockFile[] {
  return prompt.flatMap((m) =>
    typeof m.content === 'string'
      ? []
      : m.content.flatMap((part): MockFile[] => {
          if (part.type !== 'file') return [];
          const { data } = part as { data: { type: string; url?: URL; data?: Uint8Array | string } };
          if (data.type === 'url' && data.url) return [{ media_type: part.mediaType, url: data.url.toString() }];
          const bytes = typeof data.data === 'string' ? Buffer.from(data.data, 'base64').length : data.data?.length;
          return [{ media_type: part.mediaType, ...(bytes !== undefined && { bytes }) }];
        }),
  );
}

/**
 * How a mock model answers: always the same text, text made from the prompt (possibly async), or an
 * AI SDK model of your own (a `MockLanguageModelV4` from `ai/test` with its own `doGenerate` and
 * `doStream`, to send tool calls, errors or usage of your choice).
 */
export type MockReply = string | ((prompt: MockPrompt) => string | Promise<string>) | ChatModel;

/** A model provider of mock models: serves and lists the names it was given, and keeps what each was asked. */
export interface MockModelProvider extends ModelProvider {
  /** The prompts a text or function reply's model received, oldest first (none for a model of your own). */
  prompts(name: string): MockPrompt[];
}

function text(content: LanguageModelV4Prompt[number]['content']): string {
  if (typeof content === 'string') return content;
  return content
    .map((part) => {
      if (part.type === 'text' || part.type === 'reasoning') return part.text;
      if (part.type === 'tool-call') return `call ${part.toolName}(${JSON.stringify(part.input)})`;
      if (part.type === 'tool-result') return JSON.stringify(part.output);
      return '';
    })
    .join('');
}

/** A call's prompt, read as plain text. */
export function readMockPrompt(prompt: LanguageModelV4Prompt): MockPrompt {
  const system = prompt.filter((m) => m.role === 'system').map((m) => m.content);
  const messages = prompt.flatMap((m) => (m.role === 'system' ? [] : [{ role: m.role, content: text(m.content) }]));
  const input = messages.findLast((m) => m.role === 'user')?.content ?? '';
  const files = filesOf(prompt);
  return {
    instruction: system.length ? system.join('\n') : undefined,
    messages,
    input,
    ...(files.length > 0 && { files }),
  };
}

/** Words, as the mock models count tokens: deterministic and easy to assert. */
const words = (s: string) => s.split(/\s+/).filter(Boolean).length;

function usage(prompt: MockPrompt, answer: string): LanguageModelV4Usage {
  const input = words(prompt.instruction ?? '') + prompt.messages.reduce((n, m) => n + words(m.content), 0);
  const output = words(answer);
  return {
    inputTokens: { total: input, noCache: input, cacheRead: 0, cacheWrite: 0 },
    outputTokens: { total: output, text: output, reasoning: 0 },
  };
}

/** The answer as a stream: one text delta per word (with the space before the next), then the finish. */
function streamParts(answer: string, used: LanguageModelV4Usage): LanguageModelV4StreamPart[] {
  const deltas = answer.match(/\S+\s*|\s+/g) ?? [];
  return [
    { type: 'stream-start', warnings: [] },
    { type: 'text-start', id: 'text' },
    ...deltas.map((delta): LanguageModelV4StreamPart => ({ type: 'text-delta', id: 'text', delta })),
    { type: 'text-end', id: 'text' },
    { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage: used },
  ];
}

function replyModel(name: string, reply: Exclude<MockReply, ChatModel>, seen: MockPrompt[]): MockLanguageModelV4 {
  const answer = async (options: LanguageModelV4CallOptions) => {
    const prompt = readMockPrompt(options.prompt);
    seen.push(prompt);
    const output = typeof reply === 'string' ? reply : await reply(prompt);
    return { output, used: usage(prompt, output) };
  };
  return new MockLanguageModelV4({
    provider: 'mock',
    modelId: name,
    doGenerate: async (options): Promise<LanguageModelV4GenerateResult> => {
      const { output, used } = await answer(options);
      return {
        content: [{ type: 'text', text: output }],
        finishReason: { unified: 'stop', raw: 'stop' },
        usage: used,
        warnings: [],
      };
    },
    doStream: async (options) => {
      const { output, used } = await answer(options);
      return { stream: convertArrayToReadableStream(streamParts(output, used)) };
    },
  });
}

/** Options of {@link mockModels}. */
export interface MockModelOptions {
  /**
   * What each named model reads besides text (`ModelInfo.input`): `{ vision: ['text', 'image', 'file'] }`.
   * A model not named reads text only.
   */
  input?: Record<string, ModelInfo['input']>;
}

/**
 * Models for tests of code that uses agenthost, with no network: each name answers with a fixed
 * text, a text made from the prompt, or an AI SDK model you give. Plain and streamed runs both work
 * (a stream sends the answer a word at a time); usage counts words.
 *
 * @example
 * const models = mockModels({
 *   'support-bot': 'How can I help?',
 *   'shouty': ({ input }) => input.toUpperCase(),
 * });
 * const service = new AgentService({ store: new MemoryStore(), models });
 * const agent = await service.createAgent('acme', { name: 'S', instruction: 'Be brief.', model: 'shouty' });
 * (await service.runAgent('acme', agent.agent_id, { input: 'hi' })).output; // 'HI'
 * models.prompts('shouty'); // [{ instruction: 'Be brief.', messages: [{ role: 'user', content: 'hi' }], input: 'hi' }]
 * // A model that reads images and files:
 * mockModels({ vision: 'I see it' }, { input: { vision: ['text', 'image', 'file'] } });
 */
export function mockModels(replies: Record<string, MockReply>, options: MockModelOptions = {}): MockModelProvider {
  const prompts = new Map<string, MockPrompt[]>();
  const models = new Map<string, ChatModel>();
  for (const [name, reply] of Object.entries(replies)) {
    const seen: MockPrompt[] = [];
    prompts.set(name, seen);
    models.set(name, typeof reply === 'object' ? reply : replyModel(name, reply, seen));
  }
  const names = Object.freeze([...models.keys()]);
  return {
    listModels: () => names,
    languageModel: (name) => models.get(name),
    modelInfo: (name) => {
      const input = models.has(name) ? options.input?.[name] : undefined;
      const at = name.indexOf('/');
      return input && { name, provider: at > 0 ? name.slice(0, at) : 'custom', input };
    },
    prompts: (name) => [...(prompts.get(name) ?? [])],
  };
}
