import { useChat } from '@ai-sdk/react';
import { DefaultChatTransport } from 'ai';
import { type FormEvent, useEffect, useRef, useState } from 'react';
import { API_BASE, agentPath, errorMessage } from './api';
import { ErrorLine } from './error-line';
import { MessageView, type PlaygroundMessage } from './message-view';

/** The transport to an agent's chat route: the key in a header, the session id in the body. */
function chatTransport(apiKey: string, agentId: string, session: { current: string | undefined }) {
  return new DefaultChatTransport<PlaygroundMessage>({
    api: `${API_BASE}${agentPath(agentId)}/chat`,
    headers: { 'x-api-key': apiKey },
    // The server keeps the conversation: only the new message is sent, with the session to add it to.
    prepareSendMessagesRequest: ({ id, messages, trigger, messageId }) => ({
      body: {
        id,
        messages: messages.slice(-1),
        trigger,
        messageId,
        ...(session.current ? { session_id: session.current } : {}),
      },
    }),
  });
}

/**
 * A conversation with an agent: the history it was opened with, then streamed turns. The first turn
 * of a new conversation learns its session id from the reply's metadata; later turns continue it.
 */
export function Chat({
  apiKey,
  agentId,
  sessionId,
  history,
  onTurn,
}: {
  apiKey: string;
  agentId: string;
  sessionId: string | undefined;
  history: PlaygroundMessage[];
  onTurn: (sessionId: string) => void;
}) {
  const session = useRef(sessionId);
  const [transport] = useState(() => chatTransport(apiKey, agentId, session));
  const { messages, sendMessage, status, error, stop } = useChat<PlaygroundMessage>({
    transport,
    messages: history,
    onFinish: ({ message }) => {
      if (message.metadata?.session_id) onTurn(message.metadata.session_id);
    },
  });
  const [draft, setDraft] = useState('');
  const end = useRef<HTMLDivElement>(null);
  const busy = status === 'submitted' || status === 'streaming';

  useEffect(() => {
    // The session id comes with the reply's first part; later turns must name it.
    const latest = messages.findLast((m) => m.role === 'assistant')?.metadata?.session_id;
    if (latest) session.current = latest;
    end.current?.scrollIntoView?.({ block: 'end' });
  }, [messages]);

  function submit(event: FormEvent) {
    event.preventDefault();
    const text = draft.trim();
    if (!text || busy) return;
    setDraft('');
    void sendMessage({ text });
  }

  return (
    <section className="chat" aria-label="Chat">
      <div className="messages" role="log" aria-live="polite">
        {messages.map((message) => (
          <MessageView key={message.id} message={message} />
        ))}
        {messages.length === 0 && <p className="muted">Say something to start a new session.</p>}
        <div ref={end} />
      </div>
      <ErrorLine error={error && errorMessage(error.message)} />
      <form className="composer" onSubmit={submit}>
        <label htmlFor="message" className="visually-hidden">
          Message
        </label>
        <textarea
          id="message"
          rows={2}
          value={draft}
          onChange={(event) => setDraft(event.target.value)}
          onKeyDown={(event) => {
            if (event.key === 'Enter' && !event.shiftKey) submit(event);
          }}
          placeholder="Message (Enter sends, Shift+Enter for a new line)"
        />
        {status === 'streaming' ? (
          <button type="button" onClick={() => void stop()}>
            Stop
          </button>
        ) : (
          <button type="submit" disabled={busy || !draft.trim()}>
            Send
          </button>
        )}
      </form>
    </section>
  );
}
