import { toggled } from './agent-draft';
import type { Offered } from './api';

/**
 * The agent's tools: any of the server's tool integrations, in the order they were ticked (the first is
 * the agent's `tool`), and for each one ticked whether its calls wait for a person's approval.
 */
export function ToolPicker({
  offered,
  tools,
  approval,
  onChange,
}: {
  offered: Offered[] | undefined;
  tools: string[];
  approval: string[];
  onChange: (tools: string[], approval: string[]) => void;
}) {
  // Tools the agent has that the server no longer offers still show, so they can be taken off.
  const names = [...new Set([...(offered ?? []).map((tool) => tool.name), ...tools])];
  const description = (name: string) => offered?.find((tool) => tool.name === name)?.description;
  return (
    <fieldset className="tools">
      <legend>Tools</legend>
      {names.length === 0 && <p className="muted">{offered ? 'The server offers no tools.' : 'Loading…'}</p>}
      {names.map((name) => {
        const on = tools.includes(name);
        return (
          <div key={name} className="tool-choice">
            <label title={description(name)}>
              <input
                type="checkbox"
                checked={on}
                onChange={(event) =>
                  onChange(toggled(tools, name, event.target.checked), toggled(approval, name, false))
                }
              />
              {name}
              {on && tools.length > 1 && <span className="muted"> (#{tools.indexOf(name) + 1})</span>}
            </label>
            {on && (
              <label className="approval">
                <input
                  type="checkbox"
                  checked={approval.includes(name)}
                  onChange={(event) => onChange(tools, toggled(approval, name, event.target.checked))}
                />
                {name} needs approval
              </label>
            )}
          </div>
        );
      })}
    </fieldset>
  );
}
