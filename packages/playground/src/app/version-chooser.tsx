import type { AgentVersion } from './api';

/** Which version of the agent the chat's runs use: the current one (nothing sent), or one named. */
export function VersionChooser({
  current,
  versions,
  version,
  onChange,
}: {
  current: number;
  versions: AgentVersion[] | undefined;
  version: number | undefined;
  onChange: (version: number | undefined) => void;
}) {
  return (
    <div className="row version-chooser">
      <label htmlFor="run-version">Run on version</label>
      <select
        id="run-version"
        value={version ?? ''}
        onChange={(event) => onChange(event.target.value ? Number(event.target.value) : undefined)}
      >
        <option value="">current (version {current})</option>
        {(versions ?? []).map((v) => (
          <option key={v.version} value={v.version}>
            version {v.version}
          </option>
        ))}
      </select>
    </div>
  );
}
