import { expect, test } from 'vitest';
import { lockFailures, MAX_KEPT_FAILURES } from './lock-failures.js';

test('a failure reaches the waiters of its lock that started before it, and no one else', () => {
  const failures = lockFailures();
  const before = failures.ticket();
  const alsoBefore = failures.ticket();
  const error = new Error('lock service down');
  failures.record('a', error);
  const after = failures.ticket();
  expect(() => failures.atHead('b', before)).not.toThrow();
  expect(() => failures.atHead('a', before)).toThrow(error);
  expect(() => failures.atHead('a', alsoBefore)).toThrow(error);
  expect(() => failures.atHead('a', after)).not.toThrow();
});

test('a waiter that came after the failure reaches the head: the failure is forgotten', () => {
  const failures = lockFailures();
  const before = failures.ticket();
  failures.record('a', new Error('down'));
  failures.atHead('a', failures.ticket());
  expect(failures.size).toBe(0);
  expect(() => failures.atHead('a', before)).not.toThrow();
});

test('a later failure of the same lock replaces the earlier one', () => {
  const failures = lockFailures();
  const first = failures.ticket();
  failures.record('a', new Error('first'));
  const second = failures.ticket();
  failures.record('a', new Error('second'));
  expect(failures.size).toBe(1);
  expect(() => failures.atHead('a', second)).toThrow('second');
  expect(() => failures.atHead('a', first)).toThrow('second');
});

test(`at most ${MAX_KEPT_FAILURES} failures are kept, the oldest dropped first`, () => {
  const failures = lockFailures();
  const before = failures.ticket();
  for (let i = 0; i <= MAX_KEPT_FAILURES; i++) failures.record(`lock-${i}`, new Error(`down ${i}`));
  expect(failures.size).toBe(MAX_KEPT_FAILURES);
  expect(() => failures.atHead('lock-0', before)).not.toThrow();
  expect(() => failures.atHead('lock-1', before)).toThrow('down 1');
  // A lock failing again moves to the newest place: the next one dropped is lock-2.
  failures.record('lock-1', new Error('again'));
  failures.record('one more', new Error('more'));
  expect(() => failures.atHead('lock-1', before)).toThrow('again');
  expect(() => failures.atHead('lock-2', before)).not.toThrow();
});
