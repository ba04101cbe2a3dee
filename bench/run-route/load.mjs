// The loads of the run-route benchmark, made with autocannon from the benchmark's own process.
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import autocannon from 'autocannon';
import { turnInput } from './conversation.mjs';

/**
 * A target under load: `url` is its API's base (`http://127.0.0.1:<port>/api/v1`, or the floor's
 * root), `agentId` the agent its routes are called with, `apiKey` sent as `x-api-key` (the floor
 * ignores it).
 * @typedef {{ url: string, agentId: string, apiKey: string }} Target
 */

/**
 * Runs one autocannon load; resolves with its result and the seconds from its start to its last
 * answer. (autocannon's own `duration` is whole seconds when it stops after an `amount`, as it checks
 * for the end once a second.)
 */
async function timed(options) {
  const started = performance.now();
  let last = started;
  const instance = autocannon(options);
  instance.on('response', () => {
    last = performance.now();
  });
  const result = await instance;
  return { result, seconds: (last - started) / 1000 };
}

/** What one load measured: requests per second, latency percentiles in ms, and what failed. */
function summary({ result, seconds }) {
  const done = result['2xx'] + result.non2xx;
  return {
    rps: done / seconds,
    p50: result.latency.p50,
    p99: result.latency.p99,
    ok: result['2xx'],
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
  };
}

/** Several loads that ran at once, as one: their requests over the longest duration, the worst p99. */
function combined(loads) {
  const seconds = Math.max(...loads.map((load) => load.seconds));
  const parts = loads.map((load) => summary({ result: load.result, seconds }));
  const sum = (key) => parts.reduce((total, p) => total + p[key], 0);
  return {
    rps: sum('rps'),
    p50: Math.max(...parts.map((p) => p.p50)),
    p99: Math.max(...parts.map((p) => p.p99)),
    ok: sum('ok'),
    non2xx: sum('non2xx'),
    errors: sum('errors'),
    timeouts: sum('timeouts'),
  };
}

/**
 * The requests of one connection: a conversation of `turns` runs, the first starting a session and
 * the others continuing it with the `session_id` the first answered; autocannon starts the list
 * (and a fresh context, so a new session) again once it reaches the end.
 */
function conversation(target, turns, idempotencyKeys) {
  const path = `${new URL(target.url).pathname.replace(/\/$/, '')}/agents/${target.agentId}/run`;
  const body = (turn, sessionId) =>
    JSON.stringify({ input: turnInput(turn), ...(sessionId && { session_id: sessionId }) });
  const headers = (req) => (idempotencyKeys ? { ...req.headers, 'idempotency-key': randomUUID() } : req.headers);
  return Array.from({ length: turns }, (_, turn) => ({
    method: 'POST',
    path,
    ...(turn === 0
      ? {
          body: body(0),
          onResponse: (status, text, context) => {
            if (status === 200) context.sessionId = JSON.parse(text).data.session_id;
          },
        }
      : {}),
    ...((turn > 0 || idempotencyKeys) && {
      setupRequest: (req, context) => ({ ...req, headers: headers(req), body: body(turn, context.sessionId) }),
    }),
  }));
}

function headersFor(target) {
  return { 'content-type': 'application/json', 'x-api-key': target.apiKey };
}

/**
 * Holds conversations of `turns` runs on each of `connections` connections until `amount` runs were
 * answered; with several targets, the connections (and runs) are shared out among them evenly and
 * the loads run at once.
 */
export async function runLoad(targets, { amount, connections, turns, idempotencyKeys = false }) {
  const loads = await Promise.all(
    targets.map((target) =>
      timed({
        url: new URL(target.url).origin,
        headers: headersFor(target),
        connections: connections / targets.length,
        amount: amount / targets.length,
        requests: conversation(target, turns, idempotencyKeys),
      }),
    ),
  );
  return loads.length === 1 ? summary(loads[0]) : combined(loads);
}

/**
 * `amount` reads of the agent (`GET /agents/:agentId`) over `connections` connections, shared out
 * among the targets as {@link runLoad} does.
 */
export async function getLoad(targets, { amount, connections }) {
  const loads = await Promise.all(
    targets.map((target) =>
      timed({
        url: `${target.url.replace(/\/$/, '')}/agents/${target.agentId}`,
        headers: headersFor(target),
        connections: connections / targets.length,
        amount: amount / targets.length,
      }),
    ),
  );
  return loads.length === 1 ? summary(loads[0]) : combined(loads);
}

/**
 * One conversation of three turns through ordinary HTTP, to check the target before it is measured:
 * every turn answers 200 in the same session, and the last echoes its input.
 */
export async function checkConversation(target) {
  let sessionId;
  let output;
  for (let turn = 0; turn < 3; turn++) {
    const response = await fetch(`${target.url.replace(/\/$/, '')}/agents/${target.agentId}/run`, {
      method: 'POST',
      headers: headersFor(target),
      body: JSON.stringify({ input: turnInput(turn), ...(sessionId && { session_id: sessionId }) }),
    });
    const answer = await response.json().catch(() => undefined);
    if (response.status !== 200) throw new Error(`turn ${turn + 1}: HTTP ${response.status} ${JSON.stringify(answer)}`);
    if (sessionId && answer.data.session_id !== sessionId) throw new Error(`turn ${turn + 1} started a new session`);
    ({ session_id: sessionId, output } = answer.data);
  }
  if (output !== `Echo: ${turnInput(2)}`) throw new Error(`unexpected answer ${JSON.stringify(output)}`);
}
