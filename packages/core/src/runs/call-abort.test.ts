import { MemoryStore } from '@agenthost/storage';
import { APICallError, type LanguageModelV4StreamPart } from '@ai-sdk/provider';
import { convertArrayToReadableStream, MockLanguageModelV4 } from 'ai/test';
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import { AgentService } from '../agent-service.js';
import { inProcessLocks } from '../locks/in-process-locks.js';
import { NEVER_LOST } from '../locks/never-lost.js';
import { mockModels } from '../testing/mock-models.js';
import { sequentialIds, testClock } from '../testing/test-clock.js';
import { callAbort } from './call-abort.js';

const ACME = 'acme';
const TIMEOUT_MS = 60_000;

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
});

afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

describe('callAbort', () => {
  test('an abort keeps its getters on its prototype: no accessor is made per model call', () => {
    const abort = callAbort(50, []);
    const own = Object.values(Object.getOwnPropertyDescriptors(abort));
    expect(own.filter((d) => d.get || d.set)).toStrictEqual([]);
    expect([abort.signal instanceof AbortSignal, abort.timedOut]).toStrictEqual([true, false]);
    abort.release();
  });

  test('aborts at the timeout with the reason AbortSignal.timeout gives, and says it timed out', () => {
    const abort = callAbort(50, []);
    vi.advanceTimersByTime(49);
    expect([abort.signal.aborted, abort.timedOut]).toStrictEqual([false, false]);
    vi.advanceTimersByTime(1);
    const reason = abort.signal.reason as DOMException;
    expect([abort.timedOut, reason instanceof DOMException, reason.name, reason.message]).toStrictEqual([
      true,
      true,
      'TimeoutError',
      'The operation was aborted due to timeout',
    ]);
  });

  test("follows each signal's abort with its reason, and one already aborted at once", () => {
    const caller = new AbortController();
    const abort = callAbort(TIMEOUT_MS, [undefined, caller.signal]);
    caller.abort(new Error('client left'));
    expect([abort.signal.aborted, (abort.signal.reason as Error).message, abort.timedOut]).toStrictEqual([
      true,
      'client left',
      false,
    ]);
    const early = callAbort(TIMEOUT_MS, [AbortSignal.abort('gone')]);
    expect([early.signal.aborted, early.signal.reason]).toStrictEqual([true, 'gone']);
    abort.release();
    early.release();
    expect(vi.getTimerCount()).toBe(0);
  });

  test('does not listen to the signal of a lease that cannot be lost (in-process locks)', async () => {
    const lease = await inProcessLocks().acquire('session', { waitMs: 0 });
    expect(lease.signal).toBe(NEVER_LOST);
    const listen = vi.spyOn(NEVER_LOST, 'addEventListener');
    const caller = new AbortController();
    const abort = callAbort(TIMEOUT_MS, [caller.signal, lease.signal]);
    expect(listen).not.toHaveBeenCalled();
    caller.abort(new Error('client left'));
    expect([abort.signal.aborted, NEVER_LOST.aborted]).toStrictEqual([true, false]);
    abort.release();
    await lease.release();
  });

  test("nor to another copy of this package's never-lost signal, known by its mark", () => {
    const other = Object.defineProperty(new AbortController().signal, Symbol.for('agenthost.neverLost'), {
      value: true,
    });
    const listen = vi.spyOn(other, 'addEventListener');
    callAbort(TIMEOUT_MS, [other]).release();
    expect(listen).not.toHaveBeenCalled();
  });

  test('release clears the timer and stops following the signals', () => {
    const caller = new AbortController();
    const abort = callAbort(50, [caller.signal]);
    expect(vi.getTimerCount()).toBe(1);
    abort.release();
    abort.release();
    caller.abort(new Error('late'));
    vi.advanceTimersByTime(100);
    expect([vi.getTimerCount(), abort.signal.aborted, abort.timedOut]).toStrictEqual([0, false, false]);
  });
});

const usage = {
  inputTokens: { total: 3, noCache: 3, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 2, text: 2, reasoning: 0 },
};
const streamed: LanguageModelV4StreamPart[] = [
  { type: 'stream-start', warnings: [] },
  { type: 'text-start', id: 't' },
  { type: 'text-delta', id: 't', delta: 'ok' },
  { type: 'text-end', id: 't' },
  { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage },
];

function answering(): MockLanguageModelV4 {
  return new MockLanguageModelV4({
    doGenerate: async () => ({
      content: [{ type: 'text', text: 'ok' }],
      finishReason: { unified: 'stop', raw: 'stop' },
      usage,
      warnings: [],
    }),
    doStream: async () => ({ stream: convertArrayToReadableStream(streamed) }),
  });
}

function failing(): MockLanguageModelV4 {
  const error = () =>
    new APICallError({ message: 'down', url: 'https://api.example/v1', requestBodyValues: {}, statusCode: 500 });
  return new MockLanguageModelV4({
    doGenerate: async () => {
      throw error();
    },
    doStream: async () => {
      throw error();
    },
  });
}

/** The abort signals each model call was given. */
function callSignals(...models: MockLanguageModelV4[]): AbortSignal[] {
  return models.flatMap((m) => [...m.doGenerateCalls, ...m.doStreamCalls].map((call) => call.abortSignal!));
}

describe('a finished run leaves nothing of its model calls behind', () => {
  async function setup() {
    const main = failing();
    const backup = answering();
    const service = new AgentService({
      store: new MemoryStore(),
      models: mockModels({ main, backup }),
      now: testClock(),
      generateId: sequentialIds(),
      maxRetries: 0,
      providerTimeoutMs: TIMEOUT_MS,
    });
    const agent = await service.createAgent(ACME, { name: 'A', instruction: 'Be brief.', model: 'main' });
    await service.updateAgent(ACME, agent.agent_id, { fallback_models: ['backup'] });
    return { service, agentId: agent.agent_id, models: [main, backup] as const };
  }

  /** No timer is left, and neither the caller's abort nor the time a timeout takes reaches a call any more. */
  function expectReleased(caller: AbortController, signals: AbortSignal[]) {
    expect(vi.getTimerCount()).toBe(0);
    caller.abort(new Error('after the run'));
    vi.advanceTimersByTime(TIMEOUT_MS * 2);
    expect(signals.map((s) => s.aborted)).toStrictEqual([false, false]);
  }

  test('runAgent: the failed call and the fallback that answered', async () => {
    const { service, agentId, models } = await setup();
    const caller = new AbortController();
    const result = await service.runAgent(ACME, agentId, { input: 'hi', session_id: 's' }, { signal: caller.signal });
    expect([result.output, result.metadata.model]).toStrictEqual(['ok', 'backup']);
    expectReleased(caller, callSignals(...models));
  });

  test('streamAgent: the failed call and the fallback that answered', async () => {
    const { service, agentId, models } = await setup();
    const caller = new AbortController();
    const events = await service.streamAgent(
      ACME,
      agentId,
      { input: 'hi', session_id: 's' },
      { signal: caller.signal },
    );
    const types: string[] = [];
    for await (const event of events) types.push(event.type);
    expect(types.filter((t) => t === 'text-delta')).toStrictEqual(['text-delta']);
    expectReleased(caller, callSignals(...models));
  });
});
