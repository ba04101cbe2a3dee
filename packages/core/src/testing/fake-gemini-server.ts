import {
  callText,
  defaultFakeReply,
  type FakeAnswer,
  type FakeMessage,
  type FakeProviderHandler,
  type FakeProviderRequest,
  type FakeProviderServer,
  type FakeToolCall,
  type FakeWireProtocol,
  pieces,
  resultText,
  sse,
  startFakeProviderServer,
} from './fake-provider-server.js';

/** Which Gemini method a request called: one answer, or a stream of them. */
export type FakeGeminiApi = 'generateContent' | 'streamGenerateContent';

/** A request as the fake Gemini server received it; the model comes from the path. */
export type FakeGeminiRequest = FakeProviderRequest<FakeGeminiApi>;

/** Decides the fake Gemini server's answer. */
export type FakeGeminiHandler = FakeProviderHandler<FakeGeminiRequest>;

/** A running fake; `baseURL` is what `createGoogleGenerativeAI({ baseURL })` takes. */
export type FakeGeminiServer = FakeProviderServer<FakeGeminiRequest>;

interface Part {
  text?: string;
  functionCall?: { name?: string; args?: unknown };
  functionResponse?: { name?: string; response?: { content?: unknown } };
}

/** A turn's parts in order: adjacent text parts joined, each function call and response a message of its own. */
function parts(role: string, list: unknown): FakeMessage[] {
  const out: FakeMessage[] = [];
  let text: FakeMessage | undefined;
  for (const part of Array.isArray(list) ? (list as Part[]) : []) {
    if (typeof part.text === 'string') {
      if (text) text.content += part.text;
      else {
        text = { role, content: part.text };
        out.push(text);
      }
      continue;
    }
    text = undefined;
    if (part.functionCall)
      out.push({ role: 'assistant', content: callText(part.functionCall.name ?? '', part.functionCall.args ?? {}) });
    if (part.functionResponse)
      out.push({
        role: 'tool',
        content: resultText(part.functionResponse.response?.content ?? part.functionResponse.response),
      });
  }
  return out;
}

function normalise(body: Record<string, unknown>): FakeMessage[] {
  const instruction = body.systemInstruction as { parts?: unknown } | undefined;
  const system = instruction ? parts('system', instruction.parts) : [];
  const contents = Array.isArray(body.contents) ? (body.contents as { role?: string; parts?: unknown }[]) : [];
  return [...system, ...contents.flatMap((c) => parts(c.role === 'model' ? 'assistant' : (c.role ?? 'user'), c.parts))];
}

function toolNames(body: Record<string, unknown>): string[] {
  const tools = Array.isArray(body.tools) ? (body.tools as { functionDeclarations?: { name?: string }[] }[]) : [];
  return tools
    .flatMap((t) => t.functionDeclarations ?? [])
    .map((f) => f.name ?? '')
    .filter(Boolean);
}

const usageMetadata = (usage: { input: number; output: number }) => ({
  promptTokenCount: usage.input,
  candidatesTokenCount: usage.output,
  totalTokenCount: usage.input + usage.output,
});

// Each call carries an id (`fc_1`, ...), as the API may send, so the provider's tool call ids are predictable.
const callParts = (answer: { toolCalls: FakeToolCall[] }) =>
  answer.toolCalls.map((c, i) => ({ functionCall: { id: `fc_${i + 1}`, name: c.name, args: c.arguments } }));

/** One `GenerateContentResponse`; without a finish reason (and usage) it is a chunk in the middle of a stream. */
const response = (model: string, content: unknown[], finish?: { usage: { input: number; output: number } }) => ({
  candidates: [{ content: { role: 'model', parts: content }, ...(finish && { finishReason: 'STOP' }), index: 0 }],
  ...(finish && { usageMetadata: usageMetadata(finish.usage) }),
  modelVersion: model,
  responseId: 'resp_fake',
});

function* streamEvents(
  model: string,
  answer: FakeAnswer,
  usage: { input: number; output: number },
  unfinished: boolean,
) {
  // A streamed function call arrives whole, in one chunk; text arrives a piece per chunk, the finish on the last.
  const chunks = 'toolCalls' in answer ? [callParts(answer)] : pieces(answer).map((text) => [{ text }]);
  for (const [i, content] of chunks.entries())
    yield sse(response(model, content, !unfinished && i === chunks.length - 1 ? { usage } : undefined));
  if (chunks.length === 0 && !unfinished) yield sse(response(model, [{ text: '' }], { usage }));
}

const ROUTE = /\/models\/(.+):(generateContent|streamGenerateContent)$/;

const geminiProtocol: FakeWireProtocol<FakeGeminiApi> = {
  basePath: '/v1beta',
  read(_method, path, _query, body) {
    const match = ROUTE.exec(path);
    if (!match) return undefined;
    const api = match[2] as FakeGeminiApi;
    return {
      api,
      model: decodeURIComponent(match[1] ?? ''),
      messages: normalise(body),
      stream: api === 'streamGenerateContent',
      tools: toolNames(body),
    };
  },
  errorBody: (status, message) => ({
    error: {
      code: status,
      message,
      status: status === 404 ? 'NOT_FOUND' : status === 400 ? 'INVALID_ARGUMENT' : 'INTERNAL',
    },
  }),
  json: (request, answer, usage) =>
    response(request.model, 'toolCalls' in answer ? callParts(answer) : [{ text: answer.text }], { usage }),
  events: (request, answer, usage, unfinished) => streamEvents(request.model, answer, usage, unfinished),
};

/**
 * Starts a fake of the Gemini API on 127.0.0.1 (a free port): `POST {baseURL}/models/{model}:generateContent`
 * (one JSON answer) and `:streamGenerateContent?alt=sse` (server-sent events, one
 * `GenerateContentResponse` per chunk, the finish reason and `usageMetadata` on the last), text or
 * `functionCall` parts (with ids `fc_1`, ...). Each request is recorded with its conversation normalised
 * (`systemInstruction` first, function calls and responses in order) and its headers (the key
 * arrives as `x-goog-api-key`). The reply handler decides each answer, as for `startFakeOpenAIServer`;
 * an API error is `{ status: 429, body: { error: { code: 429, message: 'Resource exhausted', status:
 * 'RESOURCE_EXHAUSTED' } } }`.
 * For tests that drive the real `@ai-sdk/google` provider without a network.
 */
export function startFakeGeminiServer(options: { reply?: FakeGeminiHandler } = {}): Promise<FakeGeminiServer> {
  return startFakeProviderServer(geminiProtocol, options.reply ?? defaultFakeReply);
}
