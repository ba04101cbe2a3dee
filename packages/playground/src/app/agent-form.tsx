import { type FormEvent, useState } from 'react';
import { type AgentDraft, agentBody, draftOf } from './agent-draft';
import { type Agent, agentPath, api, type Offered } from './api';
import { ErrorLine } from './error-line';
import { Field } from './field';
import { MetadataEditor } from './metadata-editor';
import { SettingsFields } from './settings-fields';
import { ToolPicker } from './tool-picker';
import { useApiData } from './use-api';

/**
 * The form that creates an agent, or changes one (`agent` given: every change makes a new version),
 * from the models and tools the server offers.
 */
export function AgentForm({
  apiKey,
  agent,
  onSaved,
  onCancel,
}: {
  apiKey: string;
  agent?: Agent | undefined;
  onSaved: (agentId: string) => void;
  onCancel: () => void;
}) {
  const models = useApiData<Offered[]>(apiKey, '/models');
  const tools = useApiData<Offered[]>(apiKey, '/tools');
  const [draft, setDraft] = useState<AgentDraft>(() => draftOf(agent?.config));
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  // `provider/*` stands for "any model id of that endpoint": not a name an agent can take as is.
  const modelNames = (models.data ?? []).map((m) => m.name).filter((name) => !name.endsWith('/*'));
  const model = draft.model || (modelNames.includes('echo') ? 'echo' : (modelNames[0] ?? ''));
  const change = (fields: Partial<AgentDraft>) => setDraft((old) => ({ ...old, ...fields }));

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setError(undefined);
    let body: ReturnType<typeof agentBody>;
    try {
      body = agentBody({ ...draft, model });
    } catch (failure) {
      setError((failure as Error).message);
      return;
    }
    setBusy(true);
    try {
      const saved = await api<Pick<Agent, 'agent_id'>>(apiKey, agent ? agentPath(agent.agent_id) : '/agents', {
        method: agent ? 'PATCH' : 'POST',
        body,
      });
      onSaved(saved.agent_id);
    } catch (failure) {
      setError((failure as Error).message);
    } finally {
      setBusy(false);
    }
  }

  return (
    <form className="agent-form" onSubmit={submit} aria-label={agent ? `Edit ${agent.name}` : 'New agent'}>
      <h2>{agent ? `Edit ${agent.name} (version ${agent.version})` : 'New agent'}</h2>
      <Field label="Name">
        {(id) => (
          <input
            id={id}
            required
            maxLength={200}
            value={draft.name}
            onChange={(e) => change({ name: e.target.value })}
          />
        )}
      </Field>
      <Field label="Instruction">
        {(id) => (
          <textarea
            id={id}
            required
            rows={3}
            value={draft.instruction}
            onChange={(e) => change({ instruction: e.target.value })}
          />
        )}
      </Field>
      <Field label="Model">
        {(id) => (
          <select id={id} required value={model} onChange={(e) => change({ model: e.target.value })}>
            {[...new Set([...(draft.model ? [draft.model] : []), ...modelNames])].map((name) => (
              <option key={name}>{name}</option>
            ))}
          </select>
        )}
      </Field>
      <ToolPicker
        offered={tools.data}
        tools={draft.tools}
        approval={draft.require_approval}
        onChange={(chosen, require_approval) => change({ tools: chosen, require_approval })}
      />
      <SettingsFields draft={{ ...draft, model }} models={modelNames} onChange={change} />
      <MetadataEditor rows={draft.metadata} onChange={(metadata) => change({ metadata })} />
      <ErrorLine error={error ?? models.error ?? tools.error} />
      <div className="row">
        <button type="submit" disabled={busy || !models.data}>
          {agent ? 'Save changes' : 'Create agent'}
        </button>
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
