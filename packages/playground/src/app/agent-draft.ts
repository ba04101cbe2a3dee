import type { AgentConfig } from './api';

/** Most metadata pairs an agent may have (the server's bound). */
export const MAX_METADATA_PAIRS = 16;
/** Most fallback models an agent may have (the server's bound). */
export const MAX_FALLBACK_MODELS = 3;
/** Metadata keys the server takes: letters, digits, `_`, `-`, `.` and `:`, starting with a letter or digit. */
const METADATA_KEY = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,63}$/;

/** One metadata pair as typed in the form. */
export interface MetadataRow {
  key: string;
  value: string;
}

/** The agent form's fields as typed: numbers as their text ('' for the model's default). */
export interface AgentDraft {
  name: string;
  instruction: string;
  model: string;
  tools: string[];
  require_approval: string[];
  temperature: string;
  top_p: string;
  max_output_tokens: string;
  fallback_models: string[];
  metadata: MetadataRow[];
}

/** What `POST /agents` and `PATCH /agents/{id}` are sent. */
export type AgentBody = Omit<AgentDraft, 'temperature' | 'top_p' | 'max_output_tokens' | 'metadata'> & {
  temperature: number | null;
  top_p: number | null;
  max_output_tokens: number | null;
  metadata: Record<string, string>;
};

const text = (n: number | null) => (n === null ? '' : String(n));

/** The form's fields for a new agent (`config` absent) or for editing one. */
export function draftOf(config?: AgentConfig, defaultModel = ''): AgentDraft {
  return {
    name: config?.name ?? '',
    instruction: config?.instruction ?? 'You are a helpful assistant.',
    model: config?.model ?? defaultModel,
    tools: [...(config?.tools ?? [])],
    require_approval: [...(config?.require_approval ?? [])],
    temperature: text(config?.temperature ?? null),
    top_p: text(config?.top_p ?? null),
    max_output_tokens: text(config?.max_output_tokens ?? null),
    fallback_models: [...(config?.fallback_models ?? [])],
    metadata: Object.entries(config?.metadata ?? {}).map(([key, value]) => ({ key, value })),
  };
}

/** A number field's value: `null` when empty, else the number, or an error naming the field. */
function number(label: string, raw: string, whole = false): number | null {
  const trimmed = raw.trim();
  if (trimmed === '') return null;
  const value = Number(trimmed);
  if (!Number.isFinite(value) || (whole && !Number.isInteger(value)))
    throw new Error(`${label} must be ${whole ? 'a whole number' : 'a number'}`);
  return value;
}

/** The metadata pairs as an object; empty rows are dropped, a bad or repeated key is an error. */
function metadataOf(rows: readonly MetadataRow[]): Record<string, string> {
  const metadata: Record<string, string> = {};
  for (const { key: raw, value } of rows) {
    const key = raw.trim();
    if (key === '' && value === '') continue;
    if (!METADATA_KEY.test(key))
      throw new Error(`Metadata key "${key}" must be 1 to 64 letters, digits, "_", "-", "." or ":"`);
    if (Object.hasOwn(metadata, key)) throw new Error(`Metadata key "${key}" is given twice`);
    metadata[key] = value;
  }
  return metadata;
}

/**
 * The request body of a draft: settings as numbers or `null`, approvals only for chosen tools,
 * fallback models without the model itself. Throws an Error with a message for the form to show.
 */
export function agentBody(draft: AgentDraft): AgentBody {
  const tools = draft.tools;
  return {
    name: draft.name.trim(),
    instruction: draft.instruction,
    model: draft.model,
    tools,
    require_approval: draft.require_approval.filter((name) => tools.includes(name)),
    temperature: number('Temperature', draft.temperature),
    top_p: number('Top P', draft.top_p),
    max_output_tokens: number('Max output tokens', draft.max_output_tokens, true),
    fallback_models: [...new Set(draft.fallback_models.filter((m) => m !== '' && m !== draft.model))],
    metadata: metadataOf(draft.metadata),
  };
}

/** `list` with `name` added at the end, or taken out. */
export function toggled(list: readonly string[], name: string, on: boolean): string[] {
  return on ? (list.includes(name) ? [...list] : [...list, name]) : list.filter((n) => n !== name);
}
