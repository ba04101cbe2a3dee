import type { ToolSet } from 'ai';
import type { ToolResultPart } from '../records.js';
import { storedToolOutput } from './message-parts.js';

/** Keeps a tool result with the session's pending turn (a write under the session's lock). */
export type KeepResult = (part: ToolResultPart) => Promise<void>;

const isAsyncIterable = (value: unknown): boolean =>
  typeof value === 'object' && value !== null && Symbol.asyncIterator in value;

/**
 * The tools of a turn resumed after approvals, where each approved call (by tool call id) keeps its
 * result (or its error) with the pending turn as soon as the tool returns, before the model is called
 * again. Should that model call fail, the answer can be sent again and the turn goes on from the kept
 * result: an approved tool never runs twice. Other calls run as they are.
 */
export function keptTools(tools: ToolSet | undefined, approved: ReadonlySet<string>, keep: KeepResult) {
  if (!tools || approved.size === 0) return tools;
  const kept: ToolSet = {};
  for (const [name, tool] of Object.entries(tools)) {
    const execute = tool.execute;
    if (!execute) {
      kept[name] = tool;
      continue;
    }
    kept[name] = {
      ...tool,
      execute: async (input: unknown, options: Parameters<typeof execute>[1]) => {
        if (!approved.has(options.toolCallId)) return execute(input, options);
        const ids = { type: 'tool-result' as const, tool_call_id: options.toolCallId, tool_name: name };
        let output: unknown;
        try {
          output = await execute(input, options);
        } catch (error) {
          const text = error instanceof Error ? error.message : String(error);
          await keep({ ...ids, output: storedToolOutput(text), is_error: true });
          throw error;
        }
        if (!isAsyncIterable(output)) await keep({ ...ids, output: storedToolOutput(output) });
        return output;
      },
    } as ToolSet[string];
  }
  return kept;
}
