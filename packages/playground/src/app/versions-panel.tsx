import { useState } from 'react';
import { type Agent, type AgentVersion, agentPath, api } from './api';
import { ConfigView } from './config-view';
import { ErrorLine } from './error-line';

/** When a version was made, in the reader's locale. */
const when = (iso: string) => new Date(iso).toLocaleString(undefined, { dateStyle: 'short', timeStyle: 'short' });

/**
 * An agent's versions, newest first: view one's configuration, or restore it (which makes a new
 * version with that configuration).
 */
export function VersionsPanel({
  apiKey,
  agent,
  versions,
  more,
  onRestored,
}: {
  apiKey: string;
  agent: Agent;
  versions: AgentVersion[] | undefined;
  /** Whether older versions exist than those listed. */
  more: boolean;
  onRestored: () => void;
}) {
  const [open, setOpen] = useState<number>();
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);

  async function restore(version: number) {
    setBusy(true);
    setError(undefined);
    try {
      await api(apiKey, `${agentPath(agent.agent_id)}/versions/${version}/restore`, { method: 'POST' });
      setOpen(undefined);
      onRestored();
    } catch (failure) {
      setError((failure as Error).message);
    } finally {
      setBusy(false);
    }
  }

  return (
    <section className="versions" aria-label="Versions">
      <h2>Versions</h2>
      <ErrorLine error={error} />
      {versions === undefined && <p className="muted">Loading…</p>}
      <ul>
        {(versions ?? []).map((v) => {
          const current = v.version === agent.version;
          return (
            <li key={v.version} className={current ? 'current' : undefined}>
              <div className="row">
                <span className="version-name">
                  <span className="version-title">
                    Version {v.version}
                    {current ? ' (current)' : ''}
                  </span>
                  <span className="muted">{when(v.created_at)}</span>
                </span>
                <button
                  type="button"
                  aria-expanded={open === v.version}
                  aria-label={`View version ${v.version}`}
                  onClick={() => setOpen(open === v.version ? undefined : v.version)}
                >
                  View
                </button>
                {!current && (
                  <button
                    type="button"
                    disabled={busy}
                    aria-label={`Restore version ${v.version}`}
                    onClick={() => restore(v.version)}
                  >
                    Restore
                  </button>
                )}
              </div>
              {open === v.version && <ConfigView config={v.config} />}
            </li>
          );
        })}
      </ul>
      {more && <p className="muted">Older versions are not listed here (GET …/versions?cursor=…).</p>}
    </section>
  );
}
