import { type FormEvent, useState } from 'react';
import { type Agent, api, type Offered } from './api';
import { ErrorLine } from './error-line';
import { useApiData } from './use-api';

/** The form that creates an agent from the models and tools the server offers. */
export function NewAgentForm({
  apiKey,
  onCreated,
  onCancel,
}: {
  apiKey: string;
  onCreated: (agentId: string) => void;
  onCancel: () => void;
}) {
  const models = useApiData<Offered[]>(apiKey, '/models');
  const tools = useApiData<Offered[]>(apiKey, '/tools');
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  // `provider/*` stands for "any model id of that endpoint": not a name an agent can take as is.
  const modelNames = (models.data ?? []).map((m) => m.name).filter((name) => !name.endsWith('/*'));

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const field = (name: string) => String(form.get(name) ?? '');
    setBusy(true);
    setError(undefined);
    try {
      const created = await api<Pick<Agent, 'agent_id'>>(apiKey, '/agents', {
        method: 'POST',
        body: {
          name: field('name'),
          instruction: field('instruction'),
          model: field('model'),
          tool: field('tool') || null,
        },
      });
      onCreated(created.agent_id);
    } catch (failure) {
      setError((failure as Error).message);
    } finally {
      setBusy(false);
    }
  }

  return (
    <form className="new-agent" onSubmit={submit} aria-label="New agent">
      <label>
        Name
        <input name="name" required maxLength={200} />
      </label>
      <label>
        Instruction
        <textarea name="instruction" required rows={3} defaultValue="You are a helpful assistant." />
      </label>
      <label>
        Model
        <select
          name="model"
          required
          key={modelNames.join()}
          defaultValue={modelNames.includes('echo') ? 'echo' : undefined}
        >
          {modelNames.map((name) => (
            <option key={name}>{name}</option>
          ))}
        </select>
      </label>
      <label>
        Tool
        <select name="tool" defaultValue="">
          <option value="">none</option>
          {(tools.data ?? []).map((tool) => (
            <option key={tool.name}>{tool.name}</option>
          ))}
        </select>
      </label>
      <ErrorLine error={error ?? models.error ?? tools.error} />
      <div className="row">
        <button type="submit" disabled={busy || !models.data}>
          Create agent
        </button>
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
