import type { UIMessage } from 'ai';
import type { TurnMetadata } from './api';

/** A message of the playground's chats: the chat route's metadata on assistant turns. */
export type PlaygroundMessage = UIMessage<TurnMetadata>;

type Part = PlaygroundMessage['parts'][number];

/** A tool part of either kind: typed by the tool's name (`tool-<name>`) or dynamic. */
interface ToolView {
  toolName: string;
  state: string;
  input?: unknown;
  output?: unknown;
  errorText?: string;
}

function toolView(part: Part): ToolView | undefined {
  if (part.type === 'dynamic-tool') return part as ToolView;
  if (part.type.startsWith('tool-')) return { ...(part as Omit<ToolView, 'toolName'>), toolName: part.type.slice(5) };
  return undefined;
}

const json = (value: unknown) => JSON.stringify(value, null, 2);

/** A tool call as it happens: its input once known, then its output or its error. */
function ToolCall({ tool }: { tool: ToolView }) {
  const done = tool.state === 'output-available' || tool.state === 'output-error';
  return (
    <details className="tool" open>
      <summary>
        Tool <strong>{tool.toolName}</strong> {done ? '' : '(running…)'}
      </summary>
      {tool.input !== undefined && (
        <>
          <span className="muted">Input</span>
          <pre>{json(tool.input)}</pre>
        </>
      )}
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

/** One message: its text, its tool calls in the order they came, and the turn's usage. */
export function MessageView({ message }: { message: PlaygroundMessage }) {
  return (
    <article className={`message ${message.role}`} aria-label={message.role === 'user' ? 'You' : 'Agent'}>
      {message.parts.map((part, index) => {
        const key = `${message.id}-${index}`;
        if (part.type === 'text') return <p key={key}>{part.text}</p>;
        const tool = toolView(part);
        return tool ? <ToolCall key={key} tool={tool} /> : null;
      })}
      {message.role === 'assistant' && <TurnUsage metadata={message.metadata} />}
    </article>
  );
}
