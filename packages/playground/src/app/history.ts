import type { PendingApproval, StoredMessage, StoredPart } from './api';
import type { PlaygroundMessage } from './message-view';

type Part = PlaygroundMessage['parts'][number];

/** A tool part of the UI being built from stored parts (typed by the tool's name, as the stream makes them). */
interface ToolPart {
  type: `tool-${string}`;
  toolCallId: string;
  state: string;
  input: unknown;
  output?: unknown;
  errorText?: string;
  approval?: { id: string; approved?: boolean; reason?: string };
}

/** A stored image or file as the UI's file part: its bytes as a `data:` URL, or its address. */
function filePart(part: Extract<StoredPart, { type: 'image' | 'file' }>): Part {
  const url = part.data !== undefined ? `data:${part.media_type};base64,${part.data}` : (part.url ?? '');
  return {
    type: 'file',
    mediaType: part.media_type,
    url,
    ...('filename' in part && part.filename ? { filename: part.filename } : {}),
  };
}

const text = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value));

/** Applies a tool result or an approval to the tool part it belongs to. */
function settle(tool: ToolPart, part: StoredPart): void {
  if (part.type === 'tool-approval-request') {
    tool.state = 'approval-requested';
    tool.approval = { id: part.approval_id };
  } else if (part.type === 'tool-approval-response') {
    tool.approval = { id: part.approval_id, approved: part.approved, ...(part.reason ? { reason: part.reason } : {}) };
    tool.state = part.approved ? 'approval-responded' : 'output-denied';
  } else if (part.type === 'tool-result' && tool.state !== 'output-denied') {
    if (part.is_error) {
      tool.state = 'output-error';
      tool.errorText = text(part.output);
    } else {
      tool.state = 'output-available';
      tool.output = part.output;
    }
  }
}

/**
 * A stored message's parts as the UI's: text, images and files as they are, and each tool call as one
 * tool part that its result and approvals (later parts, found by call or approval id) bring up to date.
 */
export function uiParts(message: StoredMessage): Part[] {
  if (!message.parts?.length) return [{ type: 'text', text: message.content }];
  const parts: Part[] = [];
  const byCall = new Map<string, ToolPart>();
  const byApproval = new Map<string, ToolPart>();
  for (const part of message.parts) {
    if (part.type === 'text') parts.push({ type: 'text', text: part.text });
    else if (part.type === 'image' || part.type === 'file') parts.push(filePart(part));
    else if (part.type === 'tool-call') {
      const tool: ToolPart = {
        type: `tool-${part.tool_name}`,
        toolCallId: part.tool_call_id,
        state: 'input-available',
        input: part.input,
      };
      byCall.set(part.tool_call_id, tool);
      parts.push(tool as Part);
    } else {
      const tool =
        part.type === 'tool-approval-response' ? byApproval.get(part.approval_id) : byCall.get(part.tool_call_id);
      if (!tool) continue;
      if (part.type === 'tool-approval-request') byApproval.set(part.approval_id, tool);
      settle(tool, part);
    }
  }
  return parts;
}

/**
 * A session's stored messages as chat messages, to show as the history of a reopened session; tool
 * calls still waiting for approval follow as one assistant message whose calls can be answered.
 */
export function historyMessages(
  sessionId: string,
  stored: StoredMessage[],
  pending: readonly PendingApproval[] = [],
): PlaygroundMessage[] {
  const messages: PlaygroundMessage[] = stored.map((message, index) => ({
    id: `${sessionId}-${index}`,
    role: message.role,
    parts: uiParts(message),
  }));
  if (pending.length > 0)
    messages.push({
      id: `${sessionId}-pending`,
      role: 'assistant',
      parts: pending.map(
        (approval) =>
          ({
            type: `tool-${approval.tool_name}`,
            toolCallId: approval.tool_call_id,
            state: 'approval-requested',
            input: approval.input,
            approval: { id: approval.approval_id },
          }) as Part,
      ),
      metadata: { session_id: sessionId },
    });
  return messages;
}
