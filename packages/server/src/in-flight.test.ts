import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterEach, expect, test } from 'vitest';
import { type InFlight, inFlight } from './in-flight.js';

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

/**
 * An app counted by each tracker twice (as an app that counts and mounts a host's router would): `/slow`
 * answers when `release` is called, `/fast` at once.
 */
async function app(...trackers: InFlight[]) {
  if (trackers.length === 0) trackers.push(inFlight());
  const held: (() => void)[] = [];
  const application = express();
  application.use(trackers.flatMap((tracker) => [tracker.track, tracker.track]));
  application.get('/slow', (_req, res) => {
    held.push(() => res.json({ done: true }));
  });
  application.get('/slot', (_req, res) => {
    const slot = Object.getOwnPropertySymbols(res).find((key) => key.description === 'agenthost.inFlightSlot');
    res.json({ slot: slot && (res as unknown as Record<symbol, number>)[slot] });
  });
  application.get('/fast', (_req, res) => {
    res.json({ done: true });
  });
  const server = application.listen(0, '127.0.0.1');
  servers.push(server);
  await new Promise((resolve) => server.once('listening', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    tracker: trackers[0]!,
    url,
    held,
    release: () => {
      for (const answer of held.splice(0)) answer();
    },
  };
}

const settled = (promise: Promise<unknown>) =>
  Promise.race([promise.then(() => true), new Promise((resolve) => setTimeout(resolve, 50, false))]);

async function until(check: () => boolean) {
  for (let i = 0; i < 1_000 && !check(); i++) await new Promise((resolve) => setTimeout(resolve, 5));
  if (!check()) throw new Error('the requests did not arrive in time');
}

test('drains at once when nothing is in flight, also after many requests came and went', async () => {
  const { tracker, url } = await app();
  for (let i = 0; i < 50; i++) expect((await fetch(`${url}/fast`)).status).toBe(200);
  expect(await tracker.drain(1_000)).toBe(0);
});

test('waits for the requests in flight, then resolves with none cut off', async () => {
  const { tracker, url, held, release } = await app();
  const answers = [fetch(`${url}/slow`), fetch(`${url}/slow`)];
  await until(() => held.length === 2);
  const drained = tracker.drain(5_000);
  expect(await settled(drained)).toBe(false);
  release();
  expect(await drained).toBe(0);
  expect((await Promise.all(answers)).map((answer) => answer.status)).toStrictEqual([200, 200]);
});

test('at the deadline, cuts the connections of the requests still in flight and counts them', async () => {
  const { tracker, url, held } = await app();
  const cut = [
    fetch(`${url}/slow`).catch((error: Error) => error),
    fetch(`${url}/slow`).catch((error: Error) => error),
  ];
  await until(() => held.length === 2);
  let deadlineCalls = 0;
  expect(await tracker.drain(50, () => deadlineCalls++)).toBe(2);
  expect(deadlineCalls).toBe(1);
  for (const answer of await Promise.all(cut)) expect(answer).toBeInstanceOf(TypeError);
});

test('a slot freed by a finished request is used again, and a later deadline cuts only what is in flight', async () => {
  const { tracker, url, held, release } = await app();
  const first = fetch(`${url}/slow`);
  await until(() => held.length === 1);
  release();
  expect((await first).status).toBe(200);
  const cut = fetch(`${url}/slow`).catch((error: Error) => error);
  await until(() => held.length === 1);
  expect(await tracker.drain(50)).toBe(1);
  expect(await cut).toBeInstanceOf(TypeError);
});

test('two trackers each count a request that passes both', async () => {
  const other = inFlight();
  const { tracker, url, held, release } = await app(inFlight(), other);
  const answer = fetch(`${url}/slow`);
  await until(() => held.length === 1);
  const drains = [tracker.drain(5_000), other.drain(5_000)];
  expect(await settled(Promise.race(drains))).toBe(false);
  release();
  expect(await Promise.all(drains)).toStrictEqual([0, 0]);
  expect((await answer).status).toBe(200);
});

test('one request after another takes the same slot again', async () => {
  const { url } = await app();
  const slots = [];
  for (let i = 0; i < 5; i++) slots.push(((await (await fetch(`${url}/slot`)).json()) as { slot: number }).slot);
  expect(slots).toStrictEqual([0, 0, 0, 0, 0]);
});

test('a request whose client went before it reached the tracker is not counted', async () => {
  const tracker = inFlight();
  let reached = false;
  const application = express();
  // An app's own middleware that goes on only once the client has gone.
  let arrived: () => void = () => {};
  const arrival = new Promise<void>((resolve) => {
    arrived = resolve;
  });
  application.use((_req, res, next) => {
    res.once('close', () => next());
    arrived();
  });
  application.use(tracker.track, (_req, res) => {
    reached = true;
    res.end();
  });
  const server = application.listen(0, '127.0.0.1');
  servers.push(server);
  await new Promise((resolve) => server.once('listening', resolve));
  const client = new AbortController();
  const request = fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`, {
    signal: client.signal,
  }).catch(() => undefined);
  await arrival;
  client.abort();
  await request;
  await until(() => reached);
  expect(await tracker.drain(1_000)).toBe(0);
});
