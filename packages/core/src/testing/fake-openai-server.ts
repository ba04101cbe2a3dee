import {
  callText,
  defaultFakeReply,
  type FakeAnswer,
  type FakeMedia,
  type FakeMessage,
  type FakeProviderHandler,
  type FakeProviderRequest,
  type FakeProviderServer,
  type FakeReply,
  type FakeToolCall,
  type FakeWireProtocol,
  fakeMedia,
  pieces,
  resultText,
  sse,
  startFakeProviderServer,
} from './fake-provider-server.js';

/** Which OpenAI API a request used. */
export type FakeOpenAIApi = 'chat' | 'responses';

/** One message of a request, normalised from either API to a role and its text. */
export type FakeOpenAIMessage = FakeMessage;

/** A request as the fake OpenAI server received it; `api` says which API it used. */
export type FakeOpenAIRequest = FakeProviderRequest<FakeOpenAIApi>;

/** How the fake answers one request. */
export type FakeOpenAIReply = FakeReply;

/** Decides the fake's answer. */
export type FakeOpenAIHandler = FakeProviderHandler<FakeOpenAIRequest>;

/** A running fake; `baseURL` is what `createOpenAI({ baseURL })` and `createOpenAICompatible({ baseURL })` take. */
export type FakeOpenAIServer = FakeProviderServer<FakeOpenAIRequest>;

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content.map((part: { text?: unknown }) => (typeof part?.text === 'string' ? part.text : '')).join('');
  }
  return '';
}

interface WirePart {
  type?: string;
  image_url?: string | { url?: string };
  file?: { filename?: string; file_data?: string };
  filename?: string;
  file_data?: string;
  file_url?: string;
}

/** The images and files of a message's content, from either API's parts. */
function mediaOf(content: unknown): FakeMedia[] {
  if (!Array.isArray(content)) return [];
  return (content as WirePart[]).flatMap((part): FakeMedia[] => {
    const image = typeof part.image_url === 'string' ? part.image_url : part.image_url?.url;
    if ((part.type === 'image_url' || part.type === 'input_image') && image) return [fakeMedia('image', image)];
    if (part.type === 'file' && part.file?.file_data)
      return [fakeMedia('file', part.file.file_data, part.file.filename)];
    const file = part.file_data ?? part.file_url;
    if (part.type === 'input_file' && file) return [fakeMedia('file', file, part.filename)];
    return [];
  });
}

interface WireItem {
  role?: string;
  type?: string;
  content?: unknown;
  name?: string;
  arguments?: string;
  output?: unknown;
  tool_calls?: { function: { name: string; arguments: string } }[];
}

function normalise(api: FakeOpenAIApi, body: Record<string, unknown>): FakeMessage[] {
  const items = api === 'chat' ? body.messages : body.input;
  if (typeof items === 'string') return [{ role: 'user', content: items }];
  if (!Array.isArray(items)) return [];
  return (items as WireItem[]).flatMap((m): FakeMessage[] => {
    if (m.type === 'function_call') return [{ role: 'assistant', content: callText(m.name ?? '', m.arguments ?? '') }];
    if (m.type === 'function_call_output') return [{ role: 'tool', content: resultText(m.output) }];
    if (typeof m.role !== 'string') return [];
    if (m.tool_calls?.length)
      return m.tool_calls.map((c) => ({ role: 'assistant', content: callText(c.function.name, c.function.arguments) }));
    const media = mediaOf(m.content);
    return [{ role: m.role, content: textOf(m.content), ...(media.length > 0 && { media }) }];
  });
}

function toolNames(body: Record<string, unknown>): string[] {
  const tools = Array.isArray(body.tools) ? (body.tools as { name?: string; function?: { name?: string } }[]) : [];
  return tools.map((t) => t.function?.name ?? t.name ?? '').filter(Boolean);
}

const chatUsage = (usage: { input: number; output: number }) => ({
  prompt_tokens: usage.input,
  completion_tokens: usage.output,
  total_tokens: usage.input + usage.output,
});
const chatCalls = (calls: FakeToolCall[]) =>
  calls.map((c, i) => ({
    id: c.id ?? `call_${i + 1}`,
    type: 'function',
    function: { name: c.name, arguments: JSON.stringify(c.arguments) },
  }));

function chatBody(model: string, reply: FakeAnswer, usage: { input: number; output: number }) {
  const message =
    'toolCalls' in reply
      ? { role: 'assistant', content: null, tool_calls: chatCalls(reply.toolCalls) }
      : { role: 'assistant', content: reply.text };
  return {
    id: 'chatcmpl-fake',
    object: 'chat.completion',
    created: 1_700_000_000,
    model,
    choices: [{ index: 0, message, finish_reason: 'toolCalls' in reply ? 'tool_calls' : 'stop', logprobs: null }],
    usage: chatUsage(usage),
  };
}

function* chatStream(model: string, reply: FakeAnswer, usage: { input: number; output: number }, unfinished: boolean) {
  const chunk = (delta: unknown, finish: string | null = null) => ({
    id: 'chatcmpl-fake',
    object: 'chat.completion.chunk',
    created: 1_700_000_000,
    model,
    choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }],
  });
  yield chunk({ role: 'assistant', content: '' });
  if ('toolCalls' in reply) {
    for (const [index, call] of chatCalls(reply.toolCalls).entries()) yield chunk({ tool_calls: [{ index, ...call }] });
    if (unfinished) return;
    yield chunk({}, 'tool_calls');
  } else {
    for (const piece of pieces(reply)) yield chunk({ content: piece });
    if (unfinished) return;
    yield chunk({}, 'stop');
  }
  yield {
    id: 'chatcmpl-fake',
    object: 'chat.completion.chunk',
    created: 1_700_000_000,
    model,
    choices: [],
    usage: chatUsage(usage),
  };
}

const responsesUsage = (usage: { input: number; output: number }) => ({
  input_tokens: usage.input,
  input_tokens_details: { cached_tokens: 0 },
  output_tokens: usage.output,
  output_tokens_details: { reasoning_tokens: 0 },
  total_tokens: usage.input + usage.output,
});

function responsesOutput(reply: FakeAnswer) {
  if ('toolCalls' in reply) {
    return reply.toolCalls.map((c, i) => ({
      type: 'function_call',
      id: `fc_${c.id ?? i + 1}`,
      call_id: c.id ?? `call_${i + 1}`,
      name: c.name,
      arguments: JSON.stringify(c.arguments),
      status: 'completed',
    }));
  }
  return [
    {
      type: 'message',
      id: 'msg_fake',
      status: 'completed',
      role: 'assistant',
      content: [{ type: 'output_text', text: reply.text, annotations: [] }],
    },
  ];
}

function responsesBody(model: string, reply: FakeAnswer, usage: { input: number; output: number }) {
  return {
    id: 'resp_fake',
    object: 'response',
    created_at: 1_700_000_000,
    status: 'completed',
    model,
    output: responsesOutput(reply),
    incomplete_details: null,
    usage: responsesUsage(usage),
  };
}

function* responsesStream(
  model: string,
  reply: FakeAnswer,
  usage: { input: number; output: number },
  unfinished: boolean,
) {
  const base = { id: 'resp_fake', object: 'response', created_at: 1_700_000_000, model, incomplete_details: null };
  yield { type: 'response.created', response: { ...base, status: 'in_progress', output: [] } };
  const output = responsesOutput(reply);
  if ('toolCalls' in reply) {
    for (const [i, item] of output.entries()) {
      yield {
        type: 'response.output_item.added',
        output_index: i,
        item: { ...item, arguments: '', status: 'in_progress' },
      };
      yield {
        type: 'response.function_call_arguments.delta',
        item_id: item.id,
        output_index: i,
        delta: (item as { arguments: string }).arguments,
      };
      if (unfinished) return;
      yield { type: 'response.output_item.done', output_index: i, item };
    }
  } else {
    yield {
      type: 'response.output_item.added',
      output_index: 0,
      item: { type: 'message', id: 'msg_fake', status: 'in_progress', role: 'assistant', content: [] },
    };
    for (const delta of pieces(reply))
      yield {
        type: 'response.output_text.delta',
        item_id: 'msg_fake',
        output_index: 0,
        content_index: 0,
        delta,
        logprobs: [],
      };
    if (unfinished) return;
    yield { type: 'response.output_item.done', output_index: 0, item: output[0] };
  }
  yield {
    type: 'response.completed',
    response: { ...base, status: 'completed', output, usage: responsesUsage(usage) },
  };
}

const openAIProtocol: FakeWireProtocol<FakeOpenAIApi> = {
  basePath: '/v1',
  read(_method, path, _query, body) {
    const api: FakeOpenAIApi | undefined = path.endsWith('/chat/completions')
      ? 'chat'
      : path.endsWith('/responses')
        ? 'responses'
        : undefined;
    if (!api) return undefined;
    return {
      api,
      model: String(body.model),
      messages: normalise(api, body),
      stream: body.stream === true,
      tools: toolNames(body),
    };
  },
  errorBody: (status, message) => ({
    error: { message, type: status === 404 ? 'invalid_request_error' : 'server_error' },
  }),
  json: (request, answer, usage) =>
    request.api === 'chat' ? chatBody(request.model, answer, usage) : responsesBody(request.model, answer, usage),
  *events(request, answer, usage, unfinished) {
    const events =
      request.api === 'chat'
        ? chatStream(request.model, answer, usage, unfinished)
        : responsesStream(request.model, answer, usage, unfinished);
    for (const event of events) yield sse(event);
    if (request.api === 'chat' && !unfinished) yield sse('[DONE]');
  },
};

/**
 * Starts an OpenAI-compatible server on 127.0.0.1 (a free port) that answers `POST /v1/chat/completions`
 * and `POST /v1/responses`, streamed or not, and records each request. The reply handler decides each
 * answer: text or tool calls (streamed or one JSON body, as asked or as the reply says, or a stream
 * cut off before its finish), an error status, a raw body of any content type, a hang or a reset
 * connection.
 * For tests that drive the real `@ai-sdk/openai` (or `@ai-sdk/openai-compatible`) provider without a network.
 */
export function startFakeOpenAIServer(options: { reply?: FakeOpenAIHandler } = {}): Promise<FakeOpenAIServer> {
  return startFakeProviderServer(openAIProtocol, options.reply ?? defaultFakeReply);
}
