import { describe, expect, test } from 'vitest';
import { agentHostError } from '../../testing/rejection.js';
import { EventReaders } from './event-readers.js';

/** A reading of two events that ends early when its signal aborts. */
const read = async (signal: AbortSignal): Promise<AsyncIterable<number>> =>
  (async function* () {
    for (const n of [1, 2]) if (!signal.aborted) yield n;
  })();

/** Whether the account may open one more reading (opening it, then giving it up). */
async function mayOpen(readers: EventReaders): Promise<boolean> {
  try {
    const events = await readers.open('acme', undefined, read);
    await events[Symbol.asyncIterator]().return?.();
    return true;
  } catch (error) {
    expect((await agentHostError(Promise.reject(error))).code).toBe('rate_limited');
    return false;
  }
}

describe('EventReaders', () => {
  test('a reading whose signal aborts before its iteration starts frees its place at once', async () => {
    const readers = new EventReaders(1);
    const caller = new AbortController();
    const events = await readers.open('acme', caller.signal, read);
    expect(await mayOpen(readers)).toBe(false);
    caller.abort();
    expect(await mayOpen(readers)).toBe(true);
    // Iterated after all: it ends at once, and frees nothing more.
    const seen: number[] = [];
    for await (const n of events) seen.push(n);
    expect([seen, await mayOpen(readers)]).toStrictEqual([[], true]);
  });

  test('a reading opened with an aborted signal holds no place', async () => {
    const readers = new EventReaders(1);
    await readers.open('acme', AbortSignal.abort(), read);
    expect(await mayOpen(readers)).toBe(true);
  });

  test('a reading never iterated, whose signal never aborts, holds its place until returned', async () => {
    const readers = new EventReaders(1);
    const events = await readers.open('acme', new AbortController().signal, read);
    expect(await mayOpen(readers)).toBe(false);
    await events[Symbol.asyncIterator]().return?.();
    expect(await mayOpen(readers)).toBe(true);
  });

  test('a reading whose iteration started counts until it ends, an abort meanwhile ending it', async () => {
    const readers = new EventReaders(1);
    const caller = new AbortController();
    const iterator = (await readers.open('acme', caller.signal, read))[Symbol.asyncIterator]();
    expect(await iterator.next()).toStrictEqual({ done: false, value: 1 });
    caller.abort();
    expect(await mayOpen(readers)).toBe(false);
    expect(await iterator.next()).toStrictEqual({ done: true, value: undefined });
    expect(await mayOpen(readers)).toBe(true);
  });
});
