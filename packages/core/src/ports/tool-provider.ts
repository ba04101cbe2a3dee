import type { ToolSet } from 'ai';

/**
 * The tool port: turns a tool integration name, as stored in an agent's config, into the AI SDK tools
 * that a run hands to the model. One integration may contribute several tools.
 *
 * A provider must guarantee that `tools(name)` returns a tool set for every listed name and
 * `undefined` for any other name.
 */
export interface ToolProvider {
  /** The integration names this provider serves. */
  listTools(): readonly string[];
  /** The AI SDK tools of the integration `name`, or `undefined` when it is not supported. */
  tools(name: string): ToolSet | undefined;
}
