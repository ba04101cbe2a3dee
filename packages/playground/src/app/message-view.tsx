import type { FileUIPart, UIMessage } from 'ai';
import { useState } from 'react';
import type { TurnMetadata } from './api';

/** A message of the playground's chats: the chat route's metadata on assistant turns. */
export type PlaygroundMessage = UIMessage<TurnMetadata>;

type Part = PlaygroundMessage['parts'][number];

/** A person's answer to a tool call that waits for approval. */
export interface ApprovalAnswer {
  id: string;
  approved: boolean;
  reason?: string;
}

/** A tool part of either kind: typed by the tool's name (`tool-<name>`) or dynamic. */
interface ToolView {
  toolName: string;
  state: string;
  input?: unknown;
  output?: unknown;
  errorText?: string;
  approval?: { id: string; approved?: boolean; reason?: string };
}

function toolView(part: Part): ToolView | undefined {
  if (part.type === 'dynamic-tool') return part as ToolView;
  if (part.type.startsWith('tool-')) return { ...(part as Omit<ToolView, 'toolName'>), toolName: part.type.slice(5) };
  return undefined;
}

const json = (value: unknown) => JSON.stringify(value, null, 2);

/** What a tool call is doing, in a few words. */
function toolStatus(tool: ToolView): string {
  switch (tool.state) {
    case 'approval-requested':
      return '(waiting for your approval)';
    case 'approval-responded':
      return tool.approval?.approved ? '(approved, running…)' : '(denied)';
    case 'output-denied':
      return `(denied${tool.approval?.reason ? `: ${tool.approval.reason}` : ''})`;
    case 'output-available':
      return tool.approval?.approved ? '(approved)' : '';
    case 'output-error':
      return '(failed)';
    default:
      return '(running…)';
  }
}

/** Approve or deny a tool call, with an optional reason that goes to the model. */
function ApprovalForm({ tool, onAnswer }: { tool: ToolView; onAnswer: (answer: ApprovalAnswer) => void }) {
  const [reason, setReason] = useState('');
  const id = tool.approval?.id ?? '';
  const answer = (approved: boolean) => onAnswer({ id, approved, ...(reason.trim() && { reason: reason.trim() }) });
  return (
    <fieldset className="approval-form">
      <legend className="visually-hidden">Approve or deny {tool.toolName}</legend>
      <input
        aria-label={`Reason for approving or denying ${tool.toolName} (optional)`}
        placeholder="Reason (optional)"
        maxLength={2000}
        value={reason}
        onChange={(event) => setReason(event.target.value)}
      />
      <button type="button" className="approve" onClick={() => answer(true)}>
        Approve
      </button>
      <button type="button" onClick={() => answer(false)}>
        Deny
      </button>
    </fieldset>
  );
}

/** A tool call as it happens: its input once known, a request for approval, then its output or its error. */
function ToolCall({
  tool,
  onApproval,
}: {
  tool: ToolView;
  onApproval: ((answer: ApprovalAnswer) => void) | undefined;
}) {
  return (
    <details className="tool" open>
      <summary>
        Tool <strong>{tool.toolName}</strong> {toolStatus(tool)}
      </summary>
      {tool.input !== undefined && (
        <>
          <span className="muted">Input</span>
          <pre>{json(tool.input)}</pre>
        </>
      )}
      {tool.state === 'approval-requested' && onApproval && <ApprovalForm tool={tool} onAnswer={onApproval} />}
      {tool.state === 'output-available' && (
        <>
          <span className="muted">Output</span>
          <pre>{json(tool.output)}</pre>
        </>
      )}
      {tool.errorText && <p className="error">{tool.errorText}</p>}
    </details>
  );
}

/**
 * An attached image or file. Images with their bytes in the page (`data:` URLs) show; an image or file
 * at an address is a link, which the page's Content-Security-Policy does not let it load itself.
 */
function Attachment({ part }: { part: FileUIPart }) {
  const name = part.filename || part.mediaType;
  if (part.mediaType.startsWith('image/') && part.url.startsWith('data:'))
    return (
      <img className="attachment" src={part.url} alt={part.filename ? `Image ${part.filename}` : 'Attached image'} />
    );
  return (
    <p className="attachment">
      {part.url.startsWith('https://') ? (
        <a href={part.url} target="_blank" rel="noreferrer">
          {name}
        </a>
      ) : (
        <span>Attached {name}</span>
      )}
    </p>
  );
}

/** The tokens and, when the price is known, the cost of one turn. */
export function TurnUsage({ metadata }: { metadata: TurnMetadata | undefined }) {
  const tokens = metadata?.tokens;
  if (!tokens) return null;
  // Small costs keep two significant digits; a free model (echo) says $0.
  const cost = typeof metadata.cost === 'number' ? ` · $${Number(metadata.cost.toPrecision(2))}` : '';
  return (
    <p className="usage">
      {metadata.model ? `${metadata.model} · ` : ''}
      {tokens.total} tokens ({tokens.prompt} in, {tokens.completion} out){cost}
    </p>
  );
}

/**
 * One message: its text, attachments and tool calls in the order they came, and the turn's usage. A
 * tool call waiting for approval offers Approve and Deny when `onApproval` is given.
 */
export function MessageView({
  message,
  onApproval,
}: {
  message: PlaygroundMessage;
  onApproval?: (answer: ApprovalAnswer) => void;
}) {
  return (
    <article className={`message ${message.role}`} aria-label={message.role === 'user' ? 'You' : 'Agent'}>
      {message.parts.map((part, index) => {
        const key = `${message.id}-${index}`;
        if (part.type === 'text') return <p key={key}>{part.text}</p>;
        if (part.type === 'file') return <Attachment key={key} part={part} />;
        const tool = toolView(part);
        return tool ? <ToolCall key={key} tool={tool} onApproval={onApproval} /> : null;
      })}
      {message.role === 'assistant' && <TurnUsage metadata={message.metadata} />}
    </article>
  );
}
