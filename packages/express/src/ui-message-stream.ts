import type { RunEvent, RunEvents, RunResult, TokenUsage } from '@agenthost/core';
import { createUIMessageStream, type UIMessage, type UIMessageChunk, type UIMessageStreamWriter } from 'ai';

/** The metadata of a chat route's assistant message: its session from the start, its usage and status at the end. */
export interface ChatMessageMetadata {
  session_id: string;
  model?: string;
  tokens?: TokenUsage;
  /** The run's estimated cost in US dollars; `null` when the model's price is not known. */
  cost?: number | null;
  /** `requires_approval` when the run stopped for tool calls that wait for approval. */
  status?: RunResult['status'];
}

/** A UI message of the chat route. */
export type ChatUIMessage = UIMessage<ChatMessageMetadata>;

type Writer = UIMessageStreamWriter<ChatUIMessage>;

/** A stream that goes on with an assistant message the client has: the tool calls it answered the approvals of. */
export interface ResumedToolCalls {
  /** The id of the client's assistant message, so the client goes on with it instead of starting another. */
  messageId?: string;
  /** Tool calls whose approval was given: the client has them, so they are not announced again. */
  approved: readonly string[];
  /** Tool calls that were denied: written as denied first; nothing the run says of them follows. */
  denied: readonly string[];
}

const finishMetadata = (result: RunResult): ChatMessageMetadata => ({
  session_id: result.session_id,
  model: result.metadata.model,
  tokens: result.metadata.tokens,
  cost: result.metadata.cost ?? null,
  status: result.status,
});

/** Writes a run's events as UI message chunks; text between tool calls is one text part each. */
class ChunkWriter {
  #text: string | undefined;
  #parts = 0;
  /** Tool calls the client knows of (announced in this stream, or answered before it). */
  readonly #announced: Set<string>;
  readonly #denied: Set<string>;

  constructor(
    private readonly writer: Writer,
    private readonly onDone: (result: RunResult) => void,
    resumed: ResumedToolCalls = { approved: [], denied: [] },
  ) {
    this.#announced = new Set([...resumed.approved, ...resumed.denied]);
    this.#denied = new Set(resumed.denied);
    for (const toolCallId of resumed.denied) writer.write({ type: 'tool-output-denied', toolCallId });
  }

  write(event: RunEvent): void {
    if (event.type === 'text-delta') {
      this.#delta(event.delta);
      return;
    }
    this.#endText();
    if (event.type === 'done') {
      this.#finish(event.result);
      return;
    }
    // A denied call is settled on the client: what the run reports of it would undo that.
    if (this.#denied.has(event.tool_call_id)) return;
    if (event.type === 'tool-call') this.#announce(event);
    else if (event.type === 'tool-result')
      this.writer.write({ type: 'tool-output-available', toolCallId: event.tool_call_id, output: event.output });
    else if (event.type === 'tool-error')
      this.writer.write({ type: 'tool-output-error', toolCallId: event.tool_call_id, errorText: event.error });
    else if (event.type === 'approval-request') {
      // The client attaches the request to the tool call's part, so the call comes first.
      this.#announce(event);
      this.writer.write({
        type: 'tool-approval-request',
        approvalId: event.approval_id,
        toolCallId: event.tool_call_id,
      });
    } else {
      // A kind of event this writer does not know is a compile error here, not a stream ended early.
      const unknown: never = event;
      throw new Error(`unknown run event ${JSON.stringify(unknown)}`);
    }
  }

  #delta(delta: string) {
    if (this.#text === undefined) {
      this.#text = `text-${this.#parts++}`;
      this.writer.write({ type: 'text-start', id: this.#text });
    }
    this.writer.write({ type: 'text-delta', id: this.#text, delta });
  }

  #endText() {
    if (this.#text !== undefined) this.writer.write({ type: 'text-end', id: this.#text });
    this.#text = undefined;
  }

  #announce(call: { tool_call_id: string; tool_name: string; input: unknown }) {
    if (this.#announced.has(call.tool_call_id)) return;
    this.#announced.add(call.tool_call_id);
    this.writer.write({
      type: 'tool-input-available',
      toolCallId: call.tool_call_id,
      toolName: call.tool_name,
      input: call.input,
    });
  }

  #finish(result: RunResult) {
    this.onDone(result);
    this.writer.write({
      type: 'finish',
      finishReason: result.status === 'requires_approval' ? 'tool-calls' : 'stop',
      messageMetadata: finishMetadata(result),
    });
  }
}

/**
 * A streamed run as the AI SDK's UI message stream: `start` with the session id, text and tool
 * parts as they come, a `tool-approval-request` for each tool call that waits for approval,
 * `finish` with the session, model, tokens, cost and status; when the run fails after it started,
 * an `error` part whose text `errorText` makes of the failure. `resumed` says which tool calls of
 * the client's last assistant message a resumed run goes on from.
 */
export function uiMessageStream(
  events: RunEvents,
  options: { errorText: (error: unknown) => string; onDone: (result: RunResult) => void; resumed?: ResumedToolCalls },
): ReadableStream<UIMessageChunk> {
  return createUIMessageStream<ChatUIMessage>({
    execute: async ({ writer }) => {
      const messageId = options.resumed?.messageId;
      writer.write({
        type: 'start',
        ...(messageId !== undefined && { messageId }),
        messageMetadata: { session_id: events.session_id },
      });
      const chunks = new ChunkWriter(writer, options.onDone, options.resumed);
      for await (const event of events) chunks.write(event);
    },
    onError: options.errorText,
  });
}
