import type { Agent, AgentVersion } from './api';
import { Chat } from './chat';
import type { Conversation } from './use-conversation';
import { VersionChooser } from './version-chooser';

/**
 * The chat with the chosen agent and the version its runs use. Kept (hidden) while a form shows, so
 * the conversation goes on after an edit.
 */
export function ChatColumn({
  apiKey,
  agentId,
  agent,
  versions,
  runVersion,
  onRunVersion,
  conversation,
  hidden,
  onTurn,
  onReopen,
}: {
  apiKey: string;
  agentId: string;
  agent: Agent | undefined;
  versions: AgentVersion[] | undefined;
  runVersion: number | undefined;
  onRunVersion: (version: number | undefined) => void;
  conversation: Conversation;
  hidden: boolean;
  onTurn: (sessionId: string) => void;
  onReopen: (sessionId: string) => void;
}) {
  return (
    <div className="chat-column" hidden={hidden}>
      {agent && (
        <VersionChooser current={agent.version} versions={versions} version={runVersion} onChange={onRunVersion} />
      )}
      <Chat
        key={`${apiKey}\n${agentId}\n${conversation.round}`}
        apiKey={apiKey}
        agentId={agentId}
        sessionId={conversation.sessionId}
        history={conversation.history}
        version={runVersion}
        onTurn={onTurn}
        onReopen={onReopen}
      />
    </div>
  );
}
