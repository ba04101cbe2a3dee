import { type Tool, tool } from 'ai';
import { z } from 'zod';

/** For tests: the `add` tool of a `calculator` integration, which adds two numbers. */
export const addTool = (): Tool<{ a: number; b: number }, number> =>
  tool({
    description: 'Adds',
    inputSchema: z.object({ a: z.number(), b: z.number() }),
    execute: async ({ a, b }) => a + b,
  });
