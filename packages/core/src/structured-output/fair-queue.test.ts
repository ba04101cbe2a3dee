import { describe, expect, test } from 'vitest';
import { FairQueue } from './fair-queue.js';

const tick = () => new Promise((resolve) => setTimeout(resolve, 5));

/** A job that records when it starts and finishes when told to. */
function jobs() {
  const started: string[] = [];
  const finishers = new Map<string, () => void>();
  const job = (name: string) => () => {
    started.push(name);
    return new Promise<string>((resolve) => finishers.set(name, () => resolve(name)));
  };
  return { started, job, finish: (name: string) => finishers.get(name)!() };
}

describe('FairQueue', () => {
  test('parties take turns for the slots, whatever one of them has queued', async () => {
    const queue = new FairQueue({ slots: 1, maxPerParty: 10 });
    const { started, job, finish } = jobs();
    const runs = ['a1', 'a2', 'a3', 'b1', 'c1', 'b2'].map((name) => queue.run(name[0]!, job(name)));
    await tick();
    for (let i = 0; i < 6; i++) {
      finish(started.at(-1)!);
      await tick();
    }
    expect(await Promise.all(runs)).toStrictEqual(['a1', 'a2', 'a3', 'b1', 'c1', 'b2']);
    // b and c were never served, so they go before a's second job; then a, then b again.
    expect(started).toStrictEqual(['a1', 'b1', 'c1', 'a2', 'b2', 'a3']);
  });

  test('a party past its limit is told to slow down; a waiting job whose signal aborts leaves the queue', async () => {
    const queue = new FairQueue({ slots: 1, maxPerParty: 2 });
    const { started, job, finish } = jobs();
    const first = queue.run('a', job('a1'));
    const aborted = new AbortController();
    const second = queue.run('a', job('a2'), aborted.signal);
    await expect(queue.run('a', job('a3'))).rejects.toMatchObject({ code: 'rate_limited', retryAfterSeconds: 1 });
    aborted.abort(new Error('client gone'));
    await expect(second).rejects.toThrow('client gone');
    const third = queue.run('a', job('a4'));
    await tick();
    finish('a1');
    await tick();
    finish('a4');
    expect([await first, await third, started]).toStrictEqual(['a1', 'a4', ['a1', 'a4']]);
  });
});
