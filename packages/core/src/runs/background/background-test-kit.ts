import type { LanguageModelV4StreamPart } from '@ai-sdk/provider';
import { MockLanguageModelV4 } from 'ai/test';
import { vi } from 'vitest';
import { AgentService, type AgentServiceOptions } from '../../agent-service.js';
import { EchoLanguageModel } from '../../models/echo-model.js';
import { staticModels } from '../../models/static-models.js';
import type { AgentStore } from '../../ports/agent-store.js';
import type { StoredRun } from '../../ports/run-store.js';
import type { BackgroundRun, RunEventRecord, SessionMessage } from '../../records.js';
import { sequentialIds, type TestClock, testClock } from '../../testing/test-clock.js';
import { InProcessRunStore } from './in-process-run-store.js';
import { isFinishedRun } from './run-states.js';

export { runStoreView } from '../../testing/run-store-view.js';

/** A model a test drives by hand: each call's stream sends what the test says, when it says. */
export interface ControlledModel {
  model: MockLanguageModelV4;
  /** How many calls started. */
  readonly calls: number;
  /** Sends a text delta on the current call's stream. */
  send(delta: string): void;
  /** Ends the current call's stream. */
  finish(): void;
  /** Fails the current call's stream. */
  fail(error: unknown): void;
  /** Resolves once `count` calls started. */
  started(count?: number): Promise<void>;
  /** Whether the current call was aborted by its caller. */
  readonly aborted: boolean;
}

const USAGE = {
  inputTokens: { total: 3, noCache: 3, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 2, text: 2, reasoning: 0 },
};

/** A streamed model whose parts the test sends: a slow provider, without timers. A call's abort errors its stream. */
export function controlledModel(): ControlledModel {
  let stream: ReadableStreamDefaultController<LanguageModelV4StreamPart> | undefined;
  let calls = 0;
  let aborted = false;
  const waiting: { count: number; resolve: () => void }[] = [];
  const model = new MockLanguageModelV4({
    doStream: async ({ abortSignal }) => {
      calls++;
      aborted = false;
      const body = new ReadableStream<LanguageModelV4StreamPart>({
        start(controller) {
          stream = controller;
          controller.enqueue({ type: 'stream-start', warnings: [] });
          controller.enqueue({ type: 'text-start', id: 't' });
        },
      });
      abortSignal?.addEventListener('abort', () => {
        aborted = true;
        stream?.error(abortSignal.reason);
      });
      for (const w of waiting.filter((w) => calls >= w.count)) w.resolve();
      return { stream: body };
    },
  });
  return {
    model,
    get calls() {
      return calls;
    },
    get aborted() {
      return aborted;
    },
    // A stream its caller aborted is errored already: what comes after goes nowhere.
    send: (delta) => {
      if (!aborted) stream?.enqueue({ type: 'text-delta', id: 't', delta });
    },
    finish: () => {
      if (aborted) return;
      stream?.enqueue({ type: 'text-end', id: 't' });
      stream?.enqueue({ type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage: USAGE });
      stream?.close();
    },
    fail: (error) => stream?.error(error),
    started: (count = 1) =>
      calls >= count ? Promise.resolve() : new Promise<void>((resolve) => waiting.push({ count, resolve })),
  };
}

/** Every event of an iteration, in order. */
export async function collectEvents(events: AsyncIterable<RunEventRecord>): Promise<RunEventRecord[]> {
  const out: RunEventRecord[] = [];
  for await (const e of events) out.push(e);
  return out;
}

/** Two or more services of a test (servers) on one store, one run store, one clock and one id generator. */
export interface BackgroundFixture {
  store: AgentStore;
  runs: InProcessRunStore;
  clock: TestClock;
  /** The `slow` model, which the test drives. */
  slow: ControlledModel;
  /** A new service (a server) with models `echo` and `slow`. */
  service(options?: Partial<AgentServiceOptions>): AgentService;
  /** A run once it finished, as `service` reads it. */
  settled(service: AgentService, runId: string): Promise<BackgroundRun>;
  /** The messages of a session. */
  messages(agentId: string, sessionId: string): Promise<SessionMessage[]>;
  /** Closes every service made (without grace). */
  close(): Promise<void>;
}

/**
 * A fresh {@link BackgroundFixture} on `store`, an empty agent store the test makes (this kit imports
 * no storage package: core's published build must not depend on one).
 */
export function backgroundFixture(store: AgentStore): BackgroundFixture {
  const runs = new InProcessRunStore();
  const clock = testClock();
  const ids = sequentialIds();
  const slow = controlledModel();
  const services: AgentService[] = [];
  const models = staticModels({ echo: new EchoLanguageModel(), slow: slow.model });
  return {
    store,
    runs,
    clock,
    slow,
    service: (options = {}) => {
      const made = new AgentService({ store, runs, models, now: clock, generateId: ids, maxRetries: 0, ...options });
      services.push(made);
      return made;
    },
    settled: (service, runId) =>
      vi.waitFor(
        async () => {
          const run = await service.getRun('acme', runId);
          if (!isFinishedRun(run.status)) throw new Error(`run ${runId} is ${run.status}`);
          return run;
        },
        { timeout: 5000, interval: 5 },
      ),
    messages: (agentId, sessionId) => store.readMessages({ accountId: 'acme', agentId, sessionId }),
    close: async () => {
      await Promise.all(services.splice(0).map((s) => s.close()));
    },
  };
}

/**
 * A stored run that is `running` on a server named `gone` whose lease ran out at 0 (run `r` of session
 * `s` of agent `g` of account `a`); `fields` change what a test needs.
 */
export function storedRun(fields: Partial<StoredRun> = {}): StoredRun {
  return {
    run_id: 'r',
    account_id: 'a',
    agent_id: 'g',
    session_id: 's',
    status: 'running',
    created_at: '2026-01-01T00:00:00.000Z',
    started_at: '2026-01-01T00:00:00.000Z',
    finished_at: null,
    result: null,
    error: null,
    last_event_id: 0,
    cancel_requested: false,
    owner: 'gone',
    lease_until: 0,
    events_expire_at: null,
    expires_at: null,
    ...fields,
  };
}

/** The result of a run of {@link storedRun} that answered `answer` (model `m`, one token each way). */
export function runResult() {
  return {
    output: 'answer',
    session_id: 's',
    status: 'completed' as const,
    pending_approvals: [],
    metadata: {
      model: 'm',
      agent_version: 1,
      tool_used: null,
      tools_used: [],
      tokens: { prompt: 1, completion: 1, total: 2 },
      omitted_messages: 0,
    },
  };
}
