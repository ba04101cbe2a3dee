// The in-process half of the run-route benchmark: one kind of call, in a process of its own, over
// `conversations` conversations of `turns` turns, `concurrency` conversations at a time, after
// `warmup` conversations that are not timed.
//
//   generateText         the AI SDK's `generateText` on the mock model, the history kept in a Map
//   generateText-quiet   the same with the SDK's telemetry off (`telemetry: {isEnabled: false}`), as
//                        agenthost calls it when its own telemetry is off
//   runAgent             AgentService.runAgent on a MemoryStore with the mock model as its provider
//   generateText-echo    `generateText` on agenthost's `echo` model (what the standalone server runs)
//
// Prints one JSON line: {kind, calls, seconds, per_second, max_rss_kb, retained_kb}. The peak RSS is
// the process's (`process.resourceUsage().maxRSS`), so it includes the warm-up conversations; the
// retained heap is what is still in use after a full garbage collection at the end (when run with
// `--expose-gc`), the conversations' lasting cost without the garbage the peak also holds.
//
//   node bench/run-route/in-process.mjs <kind> <conversations> <turns> <concurrency> <warmup>
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { INSTRUCTION, turnInput } from './conversation.mjs';
import { ai, MOCK_MODEL_NAME, mockModel, packages } from './deps.mjs';

const [kind, conversations, turns, concurrency, warmup] = process.argv
  .slice(2)
  .map((arg, i) => (i === 0 ? arg : Number(arg)));

/** A conversation with the AI SDK alone: one call per turn, with the whole history. */
function bareConversation(model, settings = {}) {
  const sessions = new Map();
  return async function converseBare() {
    const sessionId = randomUUID();
    sessions.set(sessionId, []);
    for (let turn = 0; turn < turns; turn++) {
      const history = sessions.get(sessionId);
      const user = { role: 'user', content: turnInput(turn) };
      const result = await ai.generateText({ ...settings, model, system: INSTRUCTION, messages: [...history, user] });
      history.push(user, { role: 'assistant', content: result.text });
    }
  };
}

/** A conversation through agenthost: the first turn starts a session, the others continue it. */
async function agentConversation() {
  const { AgentService, staticModels } = await packages.core();
  const { MemoryStore } = await packages.storage();
  const models = staticModels({ [MOCK_MODEL_NAME]: mockModel() });
  const service = new AgentService({ store: new MemoryStore(), models });
  const agent = await service.createAgent('bench', { name: 'bench', instruction: INSTRUCTION, model: MOCK_MODEL_NAME });
  return async function converseWithAgent() {
    let sessionId;
    for (let turn = 0; turn < turns; turn++) {
      const input = { input: turnInput(turn), ...(sessionId && { session_id: sessionId }) };
      ({ session_id: sessionId } = await service.runAgent('bench', agent.agent_id, input));
    }
  };
}

async function conversationOf(name) {
  if (name === 'generateText') return bareConversation(mockModel());
  if (name === 'generateText-quiet') return bareConversation(mockModel(), { telemetry: { isEnabled: false } });
  if (name === 'runAgent') return agentConversation();
  if (name === 'generateText-echo') return bareConversation(new (await packages.core()).EchoLanguageModel());
  throw new Error(`unknown kind ${name}`);
}

/** Holds `count` conversations, `concurrency` at a time. */
async function converse(conversation, count) {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, count) }, async () => {
      while (next++ < count) await conversation();
    }),
  );
}

const conversation = await conversationOf(kind);
await converse(conversation, warmup);
const started = performance.now();
await converse(conversation, conversations);
const seconds = (performance.now() - started) / 1000;
const calls = conversations * turns;
const maxRssKb = process.resourceUsage().maxRSS;
globalThis.gc?.();
const retainedKb = globalThis.gc ? Math.round(process.memoryUsage().heapUsed / 1024) : null;
process.stdout.write(
  `${JSON.stringify({ kind, calls, seconds, per_second: calls / seconds, max_rss_kb: maxRssKb, retained_kb: retainedKb })}\n`,
);
