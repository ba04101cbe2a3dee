import type { RunEvent, RunEvents, RunResult, TokenUsage } from '@agenthost/core';
import { createUIMessageStream, type UIMessage, type UIMessageChunk, type UIMessageStreamWriter } from 'ai';

/** The metadata of a chat route's assistant message: its session from the start, its usage at the end. */
export interface ChatMessageMetadata {
  session_id: string;
  model?: string;
  tokens?: TokenUsage;
  /** The run's estimated cost in US dollars; `null` when the model's price is not known. */
  cost?: number | null;
}

/** A UI message of the chat route. */
export type ChatUIMessage = UIMessage<ChatMessageMetadata>;

type Writer = UIMessageStreamWriter<ChatUIMessage>;

const finishMetadata = (result: RunResult): ChatMessageMetadata => ({
  session_id: result.session_id,
  model: result.metadata.model,
  tokens: result.metadata.tokens,
  cost: result.metadata.cost ?? null,
});

/** Writes a run's events as UI message chunks; text between tool calls is one text part each. */
async function writeEvents(writer: Writer, events: AsyncIterable<RunEvent>, onDone: (result: RunResult) => void) {
  let text: string | undefined;
  let parts = 0;
  const endText = () => {
    if (text !== undefined) writer.write({ type: 'text-end', id: text });
    text = undefined;
  };
  for await (const event of events) {
    if (event.type === 'text-delta') {
      if (text === undefined) {
        text = `text-${parts++}`;
        writer.write({ type: 'text-start', id: text });
      }
      writer.write({ type: 'text-delta', id: text, delta: event.delta });
      continue;
    }
    endText();
    if (event.type === 'tool-call')
      writer.write({
        type: 'tool-input-available',
        toolCallId: event.tool_call_id,
        toolName: event.tool_name,
        input: event.input,
      });
    else if (event.type === 'tool-result')
      writer.write({ type: 'tool-output-available', toolCallId: event.tool_call_id, output: event.output });
    else if (event.type === 'tool-error')
      writer.write({ type: 'tool-output-error', toolCallId: event.tool_call_id, errorText: event.error });
    else if (event.type === 'done') {
      onDone(event.result);
      writer.write({ type: 'finish', finishReason: 'stop', messageMetadata: finishMetadata(event.result) });
    } else {
      // A kind of event this writer does not know is a compile error here, not a stream ended early.
      const unknown: never = event;
      throw new Error(`unknown run event ${JSON.stringify(unknown)}`);
    }
  }
}

/**
 * A streamed run as the AI SDK's UI message stream: `start` with the session id, text and tool
 * parts as they come, `finish` with the session, model, tokens and cost; when the run fails after
 * it started, an `error` part whose text `errorText` makes of the failure.
 */
export function uiMessageStream(
  events: RunEvents,
  options: { errorText: (error: unknown) => string; onDone: (result: RunResult) => void },
): ReadableStream<UIMessageChunk> {
  return createUIMessageStream<ChatUIMessage>({
    execute: async ({ writer }) => {
      writer.write({ type: 'start', messageMetadata: { session_id: events.session_id } });
      await writeEvents(writer, events, options.onDone);
    },
    onError: options.errorText,
  });
}
