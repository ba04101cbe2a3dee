import { EventEmitter } from 'node:events';
import type { Request, Response } from 'express';
import { describe, expect, test } from 'vitest';
import { apiRequest } from './api-request.js';
import { type RequestState, state } from './request-state.js';

interface ResponseFlags {
  closed?: boolean;
  destroyed?: boolean;
  writableFinished?: boolean;
  socket?: { destroyed: boolean } | null;
}

/** A request and a response as far as `apiRequest` looks at them. */
function exchange(flags: ResponseFlags = {}) {
  const locals: { agenthost: RequestState } = { agenthost: { requestId: 'req-1', accountId: 'acme' } };
  const res = Object.assign(new EventEmitter(), {
    closed: false,
    destroyed: false,
    writableFinished: false,
    socket: { destroyed: false },
    locals,
    ...flags,
  });
  const req = { params: { id: 'x' }, query: {}, body: { a: 1 }, baseUrl: '/api/v1', get: () => undefined };
  return { req: req as unknown as Request, res: res as unknown as Response & EventEmitter };
}

describe('apiRequest', () => {
  test.each([
    ['closed', { closed: true }],
    ['destroyed', { destroyed: true }],
    ['whose socket is destroyed', { socket: { destroyed: true } }],
  ])('a response %s before the handler starts aborts its signal at once', (_, flags) => {
    const { req, res } = exchange(flags);
    const request = apiRequest(req, res);
    expect([request.signal?.aborted, state(res).clientGone]).toStrictEqual([true, true]);
    expect(String(request.signal?.reason)).toBe('Error: The client closed the connection');
  });

  test('an open response aborts its signal when it closes unfinished, not when it finished', () => {
    const open = exchange();
    const request = apiRequest(open.req, open.res);
    expect(request).toMatchObject({ accountId: 'acme', params: { id: 'x' }, body: { a: 1 }, baseUrl: '/api/v1' });
    expect(request.signal?.aborted).toBe(false);
    open.res.emit('close');
    expect([request.signal?.aborted, state(open.res).clientGone]).toStrictEqual([true, true]);

    const answered = exchange({ socket: null });
    const other = apiRequest(answered.req, answered.res);
    Object.assign(answered.res, { writableFinished: true });
    answered.res.emit('close');
    expect([other.signal?.aborted, state(answered.res).clientGone]).toStrictEqual([false, undefined]);
  });
});
