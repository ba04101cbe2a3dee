import { expect, test } from 'vitest';
import { lockFailures } from './lock-failures.js';

/** A clock the test moves. */
function clock(start: number) {
  const time = { now: start };
  return { time, now: () => time.now };
}

test('a failure reaches the waiters of its lock that started before it, and no one else', () => {
  const { now } = clock(10_000);
  const failures = lockFailures(now);
  failures.waiting(1_000);
  const error = new Error('lock service down');
  failures.record('a', error);
  expect(() => failures.throwIfSince('a', 9_500)).toThrow(error);
  expect(() => failures.throwIfSince('a', 10_000)).toThrow(error);
  expect(() => failures.throwIfSince('a', 10_001)).not.toThrow();
  expect(() => failures.throwIfSince('b', 9_500)).not.toThrow();
});

test('a later failure of the same lock replaces the earlier one', () => {
  const { time, now } = clock(10_000);
  const failures = lockFailures(now);
  failures.record('a', new Error('first'));
  time.now += 600;
  failures.record('a', new Error('second'));
  expect(() => failures.throwIfSince('a', 10_000)).toThrow('second');
  expect(failures.size).toBe(1);
});

test('past 1,024 failures, those older than the longest wait are dropped, and only those', () => {
  const { time, now } = clock(10_000);
  const failures = lockFailures(now);
  failures.waiting(200);
  failures.waiting(1_000);
  failures.waiting(50);
  for (let i = 0; i < 1_000; i++) failures.record(`old-${i}`, new Error('old'));
  time.now += 500;
  for (let i = 0; i < 24; i++) failures.record(`recent-${i}`, new Error('recent'));
  time.now += 501;
  failures.record('new', new Error('new'));
  // The first 1,000 are 1,001 ms old, past the longest wait (1,000 ms); the 24 are 501 ms old.
  expect(failures.size).toBe(25);
  expect(() => failures.throwIfSince('old-0', 0)).not.toThrow();
  expect(() => failures.throwIfSince('recent-0', 0)).toThrow('recent');
  expect(() => failures.throwIfSince('new', 0)).toThrow('new');
});

test('under 1,024 failures, none is dropped', () => {
  const { time, now } = clock(10_000);
  const failures = lockFailures(now);
  failures.waiting(10);
  for (let i = 0; i < 1_023; i++) failures.record(`lock-${i}`, new Error('down'));
  time.now += 1_000;
  failures.record('last', new Error('down'));
  expect(failures.size).toBe(1_024);
});
