import { type FormEvent, useState } from 'react';
import type { Agent } from './api';

/** A metadata pair the agent list is filtered by. */
export interface MetadataFilter {
  key: string;
  value: string;
}

/** The agent list's label of an agent: its name, model and tools. */
const label = (agent: Agent) =>
  `${agent.name} (${[agent.config.model, ...(agent.config.tools ?? (agent.config.tool ? [agent.config.tool] : []))].join(', ')})`;

/** The form that filters the agent list by one metadata pair (`?metadata[key]=value`). */
function FilterForm({
  filter,
  onFilter,
}: {
  filter: MetadataFilter | undefined;
  onFilter: (filter: MetadataFilter | undefined) => void;
}) {
  const [key, setKey] = useState(filter?.key ?? '');
  const [value, setValue] = useState(filter?.value ?? '');
  function submit(event: FormEvent) {
    event.preventDefault();
    onFilter(key.trim() ? { key: key.trim(), value } : undefined);
  }
  return (
    <form className="filter" onSubmit={submit} aria-label="Filter agents by metadata">
      <input aria-label="Filter key" placeholder="key" value={key} onChange={(e) => setKey(e.target.value)} />
      <input aria-label="Filter value" placeholder="value" value={value} onChange={(e) => setValue(e.target.value)} />
      <button type="submit">Filter</button>
      {filter && (
        <button
          type="button"
          onClick={() => {
            setKey('');
            setValue('');
            onFilter(undefined);
          }}
        >
          Clear filter
        </button>
      )}
    </form>
  );
}

/** The account's agents to choose from (maybe filtered by a metadata pair), and the button that opens the new-agent form. */
export function AgentPicker({
  agents,
  agentId,
  filter,
  onPick,
  onNew,
  onFilter,
}: {
  agents: Agent[] | undefined;
  agentId: string | undefined;
  filter: MetadataFilter | undefined;
  onPick: (agentId: string) => void;
  onNew: () => void;
  onFilter: (filter: MetadataFilter | undefined) => void;
}) {
  const none = filter ? 'No agents match' : 'No agents yet';
  return (
    <div className="agent-picker">
      <label htmlFor="agent">Agent</label>
      <select id="agent" value={agentId ?? ''} onChange={(event) => onPick(event.target.value)}>
        <option value="" disabled>
          {agents === undefined ? 'Loading…' : agents.length === 0 ? none : 'Choose an agent'}
        </option>
        {(agents ?? []).map((agent) => (
          <option key={agent.agent_id} value={agent.agent_id}>
            {label(agent)}
          </option>
        ))}
      </select>
      <FilterForm filter={filter} onFilter={onFilter} />
      <button type="button" onClick={onNew}>
        New agent
      </button>
    </div>
  );
}
