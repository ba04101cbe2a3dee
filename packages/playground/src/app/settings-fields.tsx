import { useId } from 'react';
import { type AgentDraft, MAX_FALLBACK_MODELS } from './agent-draft';
import { Field } from './field';

type Settings = Pick<AgentDraft, 'temperature' | 'top_p' | 'max_output_tokens' | 'fallback_models' | 'model'>;

/** A number field; empty means the model's default. */
function NumberField({
  label,
  value,
  onChange,
  ...bounds
}: {
  label: string;
  value: string;
  onChange: (value: string) => void;
  min: number;
  max?: number;
  step: number;
}) {
  return (
    <Field label={label}>
      {(id) => (
        <input
          id={id}
          type="number"
          inputMode="decimal"
          placeholder="default"
          value={value}
          onChange={(event) => onChange(event.target.value)}
          {...bounds}
        />
      )}
    </Field>
  );
}

/** The model settings (temperature, top P, most output tokens) and the fallback models, tried in order. */
export function SettingsFields({
  draft,
  models,
  onChange,
}: {
  draft: Settings;
  models: string[];
  onChange: (settings: Partial<Settings>) => void;
}) {
  // One list per place, each offering "none" and every model but the agent's own.
  const fallback = Array.from({ length: MAX_FALLBACK_MODELS }, (_, i) => draft.fallback_models[i] ?? '');
  const id = useId();
  const choose = (index: number, model: string) =>
    onChange({ fallback_models: fallback.map((old, i) => (i === index ? model : old)).filter(Boolean) });
  return (
    <>
      <fieldset className="settings">
        <legend>Settings</legend>
        <NumberField
          label="Temperature"
          value={draft.temperature}
          onChange={(temperature) => onChange({ temperature })}
          min={0}
          max={2}
          step={0.1}
        />
        <NumberField
          label="Top P"
          value={draft.top_p}
          onChange={(top_p) => onChange({ top_p })}
          min={0}
          max={1}
          step={0.05}
        />
        <NumberField
          label="Max output tokens"
          value={draft.max_output_tokens}
          onChange={(max_output_tokens) => onChange({ max_output_tokens })}
          min={1}
          step={1}
        />
      </fieldset>
      <fieldset className="settings">
        <legend>Fallback models (tried in order when the model fails)</legend>
        {fallback.map((model, index) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: one list per place, the place is its identity.
          <div className="field" key={index}>
            <label htmlFor={`${id}-${index}`}>Fallback model {index + 1}</label>
            <select
              id={`${id}-${index}`}
              value={model}
              disabled={index > 0 && !fallback[index - 1]}
              onChange={(event) => choose(index, event.target.value)}
            >
              <option value="">none</option>
              {models
                .filter((name) => name !== draft.model && (name === model || !fallback.includes(name)))
                .map((name) => (
                  <option key={name}>{name}</option>
                ))}
            </select>
          </div>
        ))}
      </fieldset>
    </>
  );
}
