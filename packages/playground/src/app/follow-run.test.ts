import { afterEach, expect, test, vi } from 'vitest';
import { ApiError } from './api';
import type { FollowedRun } from './background-run';
import { type FollowSteps, keepFollowing } from './follow-run';

afterEach(() => vi.unstubAllGlobals());

const run: FollowedRun = {
  run_id: 'run_1',
  agent_id: 'agt_1',
  session_id: 'ses_1',
  input: 'hello',
  last_event_id: 2,
  text: 'He',
};

/**
 * Steps whose readings answer in turn from `answers` (true: the run ended; false: the stream broke
 * off; an Error: thrown), the run as last shown being `shown` (default `run`). Records the run each retry read on from.
 */
function steps(answers: (boolean | Error)[], options: { shown?: FollowedRun; retries?: number } = {}) {
  const shown = 'shown' in options ? options.shown : run;
  const readFrom: FollowedRun[] = [];
  const next = async () => {
    const answer = answers.shift();
    if (answer instanceof Error) throw answer;
    return answer ?? false;
  };
  const given: FollowSteps = {
    first: next,
    again: (from) => {
      readFrom.push(from);
      return next();
    },
    current: () => shown,
    signal: new AbortController().signal,
    retries: options.retries ?? 3,
    pauseMs: 1,
  };
  return { given, readFrom };
}

test('a stream that breaks off is read on from the run as last shown, without storage, until the run ends', async () => {
  // No storage at all: the run to read on from is the one last shown.
  vi.stubGlobal('sessionStorage', undefined);
  const { given, readFrom } = steps([false, false, true]);
  expect(await keepFollowing(given)).toStrictEqual({ kind: 'ended' });
  expect(readFrom).toStrictEqual([run, run]);
});

test('a failed reading other than a 404 (429, 503, the network) is retried and the run kept', async () => {
  const { given, readFrom } = steps([
    false,
    new ApiError('Too many run event streams open', 429),
    new TypeError('fetch failed'),
    new ApiError('Storage is unavailable; retry later', 503),
  ]);
  expect(await keepFollowing(given)).toStrictEqual({ kind: 'lost', error: 'Storage is unavailable; retry later' });
  expect(readFrom).toHaveLength(3);
});

test('a stream that keeps breaking off is lost after the retries, with no error thrown', async () => {
  const { given, readFrom } = steps([false, false, false, false, true], { retries: 2 });
  expect(await keepFollowing(given)).toStrictEqual({ kind: 'lost', error: undefined });
  expect(readFrom).toHaveLength(2);
});

test('a run gone (404) stops the following at once', async () => {
  const gone = new ApiError('Run not found', 404);
  const { given, readFrom } = steps([false, gone, true]);
  expect(await keepFollowing(given)).toStrictEqual({ kind: 'gone', error: gone });
  expect(readFrom).toHaveLength(1);
});

test('a start refused before there is a run is not retried', async () => {
  const refused = new ApiError('Too many background runs in flight', 429);
  const { given, readFrom } = steps([refused, true], { shown: undefined });
  expect(await keepFollowing(given)).toStrictEqual({ kind: 'refused', error: refused });
  expect(readFrom).toStrictEqual([]);
});

test('a following the page stopped ends quietly', async () => {
  const controller = new AbortController();
  const { given } = steps([]);
  const first = async () => {
    controller.abort();
    throw new DOMException('aborted', 'AbortError');
  };
  expect(await keepFollowing({ ...given, first, signal: controller.signal })).toStrictEqual({ kind: 'aborted' });
});
