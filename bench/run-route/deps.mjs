// What the run-route benchmark's processes share: the workspace's own copies of `ai`, `ai/test` and
// `express` (resolved from packages/express, so the floor and agenthost load the same modules), the
// built packages, and the zero-latency mock model every case but the standalone server answers with.
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

const fromExpress = createRequire(new URL('../../packages/express/package.json', import.meta.url));
const load = (specifier) => import(pathToFileURL(fromExpress.resolve(specifier)).href);

/** The `ai` package agenthost is built against. */
export const ai = await load('ai');
/** Its test doubles (`MockLanguageModelV4`). */
export const aiTest = await load('ai/test');
/** Express 5, the copy the router is built against. */
export const express = (await load('express')).default;

/** The built packages (run `pnpm build` first). */
export const packages = {
  core: () => import('../../packages/core/dist/index.js'),
  express: () => import('../../packages/express/dist/index.js'),
  storage: () => import('../../packages/storage/dist/index.js'),
};

/** The name the mock model is offered under in agenthost's cases. */
export const MOCK_MODEL_NAME = 'mock';
function lastUserText(prompt) {
  const message = prompt.findLast((m) => m.role === 'user');
  if (!message) return '';
  if (typeof message.content === 'string') return message.content;
  return message.content
    .filter((part) => part.type === 'text')
    .map((part) => part.text)
    .join('');
}

/**
 * A zero-latency `MockLanguageModelV4` that answers `Echo: <last user message>`, as agenthost's
 * built-in `echo` model does, with a fixed usage. The mock keeps every call's options in
 * `doGenerateCalls`, which would grow the process without bound and blur the memory figures, so
 * that list is replaced by one that keeps nothing.
 */
export function mockModel() {
  const model = new aiTest.MockLanguageModelV4({
    modelId: MOCK_MODEL_NAME,
    doGenerate: async ({ prompt }) => ({
      content: [{ type: 'text', text: `Echo: ${lastUserText(prompt)}` }],
      finishReason: { unified: 'stop', raw: 'stop' },
      usage: {
        inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 },
        outputTokens: { total: 5, text: 5, reasoning: 0 },
      },
      warnings: [],
    }),
  });
  model.doGenerateCalls = { push: () => 0 };
  return model;
}
