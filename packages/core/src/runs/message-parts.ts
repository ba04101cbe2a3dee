import type { AssistantContent, ModelMessage, ToolResultPart as SdkToolResult, ToolContent } from 'ai';
import type {
  MessagePart,
  PendingApproval,
  SessionMessage,
  ToolApprovalRequestPart,
  ToolApprovalResponsePart,
  ToolCallPart,
  ToolResultPart,
} from '../records.js';
import { MAX_INPUT_FILES_BYTES } from '../schemas.js';
import { userModelContent } from './input-parts.js';

type SdkOutput = SdkToolResult['output'];
type AssistantPart = Exclude<AssistantContent, string>[number];
type ToolPart = ToolContent[number];

/** What a denied tool call returned, when the person gave no reason. */
export const DENIED = 'The tool call was denied';

/** Most characters of a tool's output (as JSON text) kept in a session. */
export const MAX_STORED_TOOL_OUTPUT = 64 * 1024;

/**
 * A tool's output as a session keeps it: as it is, or, past {@link MAX_STORED_TOOL_OUTPUT} characters
 * of JSON, the start of its JSON text and a note that the rest was cut (the run's model saw it whole).
 */
export function storedToolOutput(output: unknown): unknown {
  let text: string;
  try {
    text = typeof output === 'string' ? output : (JSON.stringify(output) ?? 'null');
  } catch {
    // Not JSON (a cycle, a BigInt): kept as its text.
    text = String(output);
    return storedToolOutput(text);
  }
  if (text.length <= MAX_STORED_TOOL_OUTPUT) return output;
  return `${text.slice(0, MAX_STORED_TOOL_OUTPUT)}… [cut: ${text.length} characters in all]`;
}

/** A tool's output as stored: its value; errors and denials as their text (or JSON) with `is_error`. */
function storedOutput(output: SdkOutput): { output: unknown; is_error?: true } {
  switch (output.type) {
    case 'error-text':
    case 'error-json':
      return { output: storedToolOutput(output.value), is_error: true };
    case 'execution-denied':
      return { output: output.reason ? `${DENIED}: ${output.reason}` : DENIED, is_error: true };
    default:
      return { output: storedToolOutput(output.value) };
  }
}

/** A stored output as the AI SDK sends it to a model: text stays text, anything else JSON. */
function sdkOutput({ output, is_error }: ToolResultPart): SdkOutput {
  const value = (output ?? null) as never;
  if (is_error)
    return typeof output === 'string' ? { type: 'error-text', value: output } : { type: 'error-json', value };
  return typeof output === 'string' ? { type: 'text', value: output } : { type: 'json', value };
}

function resultPart(part: SdkToolResult): ToolResultPart {
  return { type: 'tool-result', tool_call_id: part.toolCallId, tool_name: part.toolName, ...storedOutput(part.output) };
}

function assistantPart(part: AssistantPart): MessagePart | undefined {
  switch (part.type) {
    case 'text':
      return part.text ? { type: 'text', text: part.text } : undefined;
    case 'tool-call':
      return { type: 'tool-call', tool_call_id: part.toolCallId, tool_name: part.toolName, input: part.input };
    case 'tool-result':
      return resultPart(part);
    case 'tool-approval-request':
      return { type: 'tool-approval-request', approval_id: part.approvalId, tool_call_id: part.toolCallId };
    default:
      // Reasoning and generated files are not kept.
      return undefined;
  }
}

function toolPart(part: ToolPart): MessagePart {
  if (part.type === 'tool-result') return resultPart(part);
  return {
    type: 'tool-approval-response',
    approval_id: part.approvalId,
    approved: part.approved,
    ...(part.reason !== undefined && { reason: part.reason }),
  };
}

/**
 * The AI SDK's response messages of a run (assistant and tool messages) as one list of parts, in the
 * order they happened: text, tool calls, their results (errors and denials with `is_error`), and
 * approval requests and answers.
 */
export function responseParts(messages: readonly ModelMessage[]): MessagePart[] {
  const parts: MessagePart[] = [];
  for (const message of messages) {
    if (message.role === 'assistant') {
      if (typeof message.content === 'string') {
        if (message.content) parts.push({ type: 'text', text: message.content });
      } else
        for (const part of message.content) {
          const kept = assistantPart(part);
          if (kept) parts.push(kept);
        }
    } else if (message.role === 'tool') {
      for (const part of message.content) parts.push(toolPart(part));
    }
  }
  return parts;
}

/** The denial of a tool call as stored: with the reason its answer in `parts` gave, if any. */
function denial(toolCallId: string, parts: readonly MessagePart[]): string {
  const request = parts.find((p) => p.type === 'tool-approval-request' && p.tool_call_id === toolCallId);
  const answer = parts.find(
    (p): p is ToolApprovalResponsePart =>
      p.type === 'tool-approval-response' &&
      request?.type === 'tool-approval-request' &&
      p.approval_id === request.approval_id,
  );
  return answer?.reason ? `${DENIED}: ${answer.reason}` : DENIED;
}

/**
 * A tool's outcome as a stream reports it (a result, an error, a denial) as a stored part; `earlier`
 * holds the answers of the turn, for a denial's reason. Other stream parts make none.
 */
export function executedPart(
  part: { type: string; toolCallId?: string; toolName?: string; output?: unknown; error?: unknown },
  earlier: readonly MessagePart[],
): ToolResultPart[] {
  const ids = { tool_call_id: part.toolCallId ?? '', tool_name: part.toolName ?? '' };
  if (part.type === 'tool-result') return [{ type: 'tool-result', ...ids, output: storedToolOutput(part.output) }];
  if (part.type === 'tool-error') {
    const output = storedToolOutput(part.error instanceof Error ? part.error.message : String(part.error));
    return [{ type: 'tool-result', ...ids, output, is_error: true }];
  }
  if (part.type === 'tool-output-denied')
    return [{ type: 'tool-result', ...ids, output: denial(ids.tool_call_id, earlier), is_error: true }];
  return [];
}

/** Which side of the conversation a part belongs to when it is sent back to a model. */
const TOOL_SIDE = new Set<MessagePart['type']>(['tool-result', 'tool-approval-response']);

function sdkAssistantPart(part: MessagePart): AssistantPart | undefined {
  switch (part.type) {
    case 'text':
      return { type: 'text', text: part.text };
    case 'tool-call':
      return { type: 'tool-call', toolCallId: part.tool_call_id, toolName: part.tool_name, input: part.input };
    case 'tool-approval-request':
      return { type: 'tool-approval-request', approvalId: part.approval_id, toolCallId: part.tool_call_id };
    default:
      return undefined;
  }
}

function sdkToolPart(part: MessagePart): ToolPart | undefined {
  if (part.type === 'tool-result')
    return { type: 'tool-result', toolCallId: part.tool_call_id, toolName: part.tool_name, output: sdkOutput(part) };
  if (part.type === 'tool-approval-response')
    return {
      type: 'tool-approval-response',
      approvalId: part.approval_id,
      approved: part.approved,
      ...(part.reason !== undefined && { reason: part.reason }),
    };
  return undefined;
}

/**
 * An assistant's parts as AI SDK messages: runs of text, tool calls (and approval requests) as
 * assistant messages, runs of tool results (and approval answers) as tool messages. Without
 * `approvals`, approval parts are left out (a finished turn: every call has its result).
 */
export function assistantMessages(
  parts: readonly MessagePart[],
  { approvals }: { approvals: boolean },
): ModelMessage[] {
  const messages: ModelMessage[] = [];
  for (const part of parts) {
    if (!approvals && (part.type === 'tool-approval-request' || part.type === 'tool-approval-response')) continue;
    const last = messages.at(-1);
    if (TOOL_SIDE.has(part.type)) {
      const sdk = sdkToolPart(part);
      if (!sdk) continue;
      if (last?.role === 'tool') last.content.push(sdk);
      else messages.push({ role: 'tool', content: [sdk] });
    } else {
      const sdk = sdkAssistantPart(part);
      if (!sdk) continue;
      if (last?.role === 'assistant' && typeof last.content !== 'string') last.content.push(sdk);
      else messages.push({ role: 'assistant', content: [sdk] });
    }
  }
  return messages;
}

type HistoryMessage = Pick<SessionMessage, 'role' | 'content' | 'parts'>;

/** The decoded size of base64 `data`. */
const dataBytes = (data: string) => Math.floor((data.replace(/=+$/, '').length * 3) / 4);

/**
 * The history with the bytes of its images and files bounded: the newest are kept up to
 * {@link MAX_INPUT_FILES_BYTES} in all (what one input may carry), older ones become a text part
 * that says one was there, so a long session's history never adds more than that to a run.
 */
export function boundedAttachments(messages: readonly HistoryMessage[]): HistoryMessage[] {
  let left = MAX_INPUT_FILES_BYTES;
  const kept = (part: MessagePart): MessagePart => {
    if ((part.type !== 'image' && part.type !== 'file') || part.data === undefined) return part;
    left -= dataBytes(part.data);
    return left >= 0 ? part : { type: 'text', text: `[${part.media_type} left out of the history]` };
  };
  const bounded = (m: HistoryMessage): HistoryMessage => {
    if (m.role !== 'user' || !m.parts) return m;
    const parts = m.parts.toReversed().map(kept).toReversed();
    if (parts.every((p, i) => p === m.parts?.[i])) return m;
    // Its text then says what was left out, also when no image or file is left to send with it.
    const text = parts.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('\n');
    return { ...m, content: text, parts };
  };
  return messages.toReversed().map(bounded).toReversed();
}

/**
 * Stored messages as the AI SDK messages a model is sent: a user's content (text, or its parts, with
 * {@link boundedAttachments}), an assistant's text, or its tool calls and results.
 */
export function historyMessages(messages: readonly HistoryMessage[]): ModelMessage[] {
  return boundedAttachments(messages).flatMap((message): ModelMessage[] => {
    if (message.role === 'user') return [{ role: 'user', content: userModelContent(message) }];
    if (!message.parts?.some((p) => p.type !== 'text')) return [{ role: 'assistant', content: message.content }];
    return assistantMessages(message.parts, { approvals: false });
  });
}

/** The parts a message is returned with: its own, or one text part for a message stored as text only. */
export function partsOf(message: SessionMessage): SessionMessage {
  return message.parts ? message : { ...message, parts: [{ type: 'text', text: message.content }] };
}

/** Whether an assistant's parts hold more than text (then they are stored with the message). */
export function hasMoreThanText(parts: readonly MessagePart[]): boolean {
  return parts.some((p) => p.type !== 'text');
}

/** The approval requests of `parts` that have no answer yet, with the calls they are for. */
export function unansweredApprovals(parts: readonly MessagePart[]): PendingApproval[] {
  const calls = new Map(
    parts.filter((p): p is ToolCallPart => p.type === 'tool-call').map((p) => [p.tool_call_id, p] as const),
  );
  const answered = new Set(parts.flatMap((p) => (p.type === 'tool-approval-response' ? [p.approval_id] : [])));
  return parts
    .filter((p): p is ToolApprovalRequestPart => p.type === 'tool-approval-request' && !answered.has(p.approval_id))
    .map((p) => {
      const call = calls.get(p.tool_call_id);
      return {
        approval_id: p.approval_id,
        tool_call_id: p.tool_call_id,
        tool_name: call?.tool_name ?? '',
        input: call?.input ?? null,
      };
    });
}

/** The names of the tools called in `parts`, in order (with repeats). */
export function calledTools(parts: readonly MessagePart[]): string[] {
  return parts.flatMap((p) => (p.type === 'tool-call' ? [p.tool_name] : []));
}

/** The text of an assistant's parts: its text parts, joined. */
export function partsText(parts: readonly MessagePart[]): string {
  return parts.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('');
}
