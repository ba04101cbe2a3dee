import type { AgentConfig } from './api';

const list = (names: readonly string[]) => (names.length ? names.join(', ') : 'none');
const setting = (value: number | null) => (value === null ? 'default' : String(value));

/** An agent's configuration (of a version) as a list of its fields. */
export function ConfigView({ config }: { config: AgentConfig }) {
  const metadata = Object.entries(config.metadata ?? {});
  const rows: [string, string][] = [
    ['Name', config.name],
    ['Model', config.model],
    ['Instruction', config.instruction],
    ['Tools', list(config.tools ?? (config.tool ? [config.tool] : []))],
    ['Needs approval', list(config.require_approval ?? [])],
    ['Temperature', setting(config.temperature ?? null)],
    ['Top P', setting(config.top_p ?? null)],
    ['Max output tokens', setting(config.max_output_tokens ?? null)],
    ['Fallback models', list(config.fallback_models ?? [])],
    ['Metadata', metadata.length ? metadata.map(([key, value]) => `${key}=${value}`).join(', ') : 'none'],
  ];
  return (
    <dl className="config">
      {rows.map(([term, value]) => (
        <div key={term}>
          <dt>{term}</dt>
          <dd>{value}</dd>
        </div>
      ))}
    </dl>
  );
}
