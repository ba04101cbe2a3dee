import { staticTools } from '@agenthost/core';
import { type ToolSet, tool } from 'ai';
import { describe, expect, test } from 'vitest';
import { z } from 'zod';
import { combineTools } from './combine-tools.js';

function named(label: string): ToolSet {
  return { [label]: tool({ description: label, inputSchema: z.object({}), execute: async () => label }) };
}

describe('combineTools', () => {
  test('lists every name once, in provider order; the first provider with a name serves it', () => {
    const a = { one: named('a.one'), shared: named('a.shared') };
    const b = { shared: named('b.shared'), two: named('b.two') };
    const c = { three: named('c.three'), one: named('c.one') };
    const combined = combineTools(staticTools(a), staticTools(b), staticTools(c));
    expect(combined.listTools()).toStrictEqual(['one', 'shared', 'two', 'three']);
    expect(['one', 'shared', 'two', 'three', 'four'].map((name) => combined.tools(name))).toStrictEqual([
      a.one,
      a.shared,
      b.two,
      c.three,
      undefined,
    ]);
    expect(combined.tools('shared')).toBe(a.shared);
  });

  test('no providers offer nothing', () => {
    const combined = combineTools();
    expect([combined.listTools(), combined.tools('calculator')]).toStrictEqual([[], undefined]);
  });

  test('a provider whose list changes is read again', () => {
    let names = ['x'];
    const sets: Record<string, ToolSet> = { x: named('x'), y: named('y') };
    const dynamic = {
      listTools: () => names,
      tools: (name: string) => (names.includes(name) ? sets[name] : undefined),
    };
    const combined = combineTools(dynamic);
    expect([combined.listTools(), combined.tools('y')]).toStrictEqual([['x'], undefined]);
    names = ['x', 'y'];
    expect([combined.listTools(), combined.tools('y')]).toStrictEqual([['x', 'y'], sets.y]);
  });
});
