import { useChat } from '@ai-sdk/react';
import { DefaultChatTransport, type FileUIPart, lastAssistantMessageIsCompleteWithApprovalResponses } from 'ai';
import { useEffect, useRef, useState } from 'react';
import { API_BASE, agentPath, errorMessage } from './api';
import { Composer } from './composer';
import { ErrorLine } from './error-line';
import { MessageView, type PlaygroundMessage } from './message-view';
import { useBackgroundRun } from './use-background-run';

/** What each request of a conversation names besides its message: the session, and the version to run on. */
interface RunTarget {
  session: string | undefined;
  version: number | undefined;
}

/** The transport to an agent's chat route: the key in a header, the session id and version in the body. */
function chatTransport(apiKey: string, agentId: string, target: { current: RunTarget }) {
  return new DefaultChatTransport<PlaygroundMessage>({
    api: `${API_BASE}${agentPath(agentId)}/chat`,
    headers: { 'x-api-key': apiKey },
    // The server keeps the conversation: only the new message is sent (a user's message, or the
    // assistant's with the approvals just answered), with the session to add it to.
    prepareSendMessagesRequest: ({ id, messages, trigger, messageId }) => ({
      body: {
        id,
        messages: messages.slice(-1),
        trigger,
        messageId,
        ...(target.current.session ? { session_id: target.current.session } : {}),
        ...(target.current.version ? { version: target.current.version } : {}),
      },
    }),
  });
}

/**
 * A conversation with an agent: the history it was opened with, then streamed turns. The first turn
 * of a new conversation learns its session id from the reply's metadata; later turns continue it.
 * Runs use `version` of the agent when given, else its current version. A tool call that waits for
 * approval is answered in place; once every call of the turn is answered, the answers are sent and
 * the turn goes on. With *Run in background* on, a message starts a background run instead (see
 * {@link useBackgroundRun}), which a reload reattaches to.
 */
export function Chat({
  apiKey,
  agentId,
  sessionId,
  history,
  version,
  onTurn,
  onReopen,
}: {
  apiKey: string;
  agentId: string;
  sessionId: string | undefined;
  history: PlaygroundMessage[];
  version: number | undefined;
  onTurn: (sessionId: string) => void;
  onReopen: (sessionId: string) => void;
}) {
  const target = useRef<RunTarget>({ session: sessionId, version });
  target.current.version = version;
  const [transport] = useState(() => chatTransport(apiKey, agentId, target));
  const [background, setBackground] = useState(false);
  const { messages, setMessages, sendMessage, status, error, stop, addToolApprovalResponse } =
    useChat<PlaygroundMessage>({
      transport,
      messages: history,
      sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
      onFinish: ({ message }) => {
        if (message.metadata?.session_id) onTurn(message.metadata.session_id);
      },
    });
  const runs = useBackgroundRun({ apiKey, agentId, sessionId, setMessages, onTurn, onReopen });
  const end = useRef<HTMLDivElement>(null);
  const busy = status === 'submitted' || status === 'streaming' || runs.busy;

  function send({ text, files }: { text: string; files: FileUIPart[] }) {
    if (!background) {
      void sendMessage(files.length ? { files, ...(text && { text }) } : { text });
      return;
    }
    const { session, version: chosen } = target.current;
    runs.start({ input: text, ...(session && { session_id: session }), ...(chosen && { version: chosen }) });
  }

  useEffect(() => {
    // The session id comes with the reply's first part; later turns must name it.
    const latest = messages.findLast((m) => m.role === 'assistant')?.metadata?.session_id;
    if (latest) target.current.session = latest;
    end.current?.scrollIntoView?.({ block: 'end' });
  }, [messages]);

  return (
    <section className="chat" aria-label="Chat">
      <div className="messages" role="log" aria-live="polite">
        {messages.map((message) => (
          <MessageView
            key={message.id}
            message={message}
            onApproval={busy ? undefined : (answer) => void addToolApprovalResponse(answer)}
          />
        ))}
        {messages.length === 0 && <p className="muted">Say something to start a new session.</p>}
        <div ref={end} />
      </div>
      <ErrorLine error={runs.error ?? (error && errorMessage(error.message))} />
      <Composer
        busy={busy}
        streaming={status === 'streaming' || runs.running !== undefined}
        background={background}
        onBackground={setBackground}
        onSend={send}
        onStop={() => (runs.running ? runs.cancel() : void stop())}
      />
    </section>
  );
}
