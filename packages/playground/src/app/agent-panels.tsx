import type { Agent, AgentVersion, SessionInfo } from './api';
import { SessionList } from './session-list';
import { VersionsPanel } from './versions-panel';

/** The sidebar's part for the chosen agent: Edit agent, its sessions and its versions. */
export function AgentPanels({
  apiKey,
  agentId,
  agent,
  sessions,
  versions,
  current,
  onEdit,
  onOpen,
  onNew,
  onDeleted,
  onRestored,
}: {
  apiKey: string;
  agentId: string;
  agent: Agent | undefined;
  sessions: SessionInfo[] | undefined;
  versions: { versions: AgentVersion[]; next_cursor: string | null } | undefined;
  current: string | undefined;
  onEdit: () => void;
  onOpen: (sessionId: string) => void;
  onNew: () => void;
  onDeleted: (sessionId: string) => void;
  onRestored: () => void;
}) {
  return (
    <>
      {agent && (
        <button type="button" onClick={onEdit}>
          Edit agent
        </button>
      )}
      <SessionList
        apiKey={apiKey}
        agentId={agentId}
        sessions={sessions}
        current={current}
        onOpen={onOpen}
        onNew={onNew}
        onDeleted={onDeleted}
      />
      {agent && (
        <VersionsPanel
          key={agentId}
          apiKey={apiKey}
          agent={agent}
          versions={versions?.versions}
          more={Boolean(versions?.next_cursor)}
          onRestored={onRestored}
        />
      )}
    </>
  );
}
