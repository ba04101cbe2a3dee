import type { Agent } from './api';

/** The account's agents to choose from, and the button that opens the new-agent form. */
export function AgentPicker({
  agents,
  agentId,
  onPick,
  onNew,
}: {
  agents: Agent[] | undefined;
  agentId: string | undefined;
  onPick: (agentId: string) => void;
  onNew: () => void;
}) {
  return (
    <div className="agent-picker">
      <label htmlFor="agent">Agent</label>
      <select id="agent" value={agentId ?? ''} onChange={(event) => onPick(event.target.value)}>
        <option value="" disabled>
          {agents === undefined ? 'Loading…' : agents.length === 0 ? 'No agents yet' : 'Choose an agent'}
        </option>
        {(agents ?? []).map((agent) => (
          <option key={agent.agent_id} value={agent.agent_id}>
            {agent.name} ({agent.config.model}
            {agent.config.tool ? `, ${agent.config.tool}` : ''})
          </option>
        ))}
      </select>
      <button type="button" onClick={onNew}>
        New agent
      </button>
    </div>
  );
}
