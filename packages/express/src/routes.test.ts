import { AgentService, echoModels } from '@agenthost/core';
import { MemoryStore } from '@agenthost/storage';
import express from 'express';
import request from 'supertest';
import { describe, expect, test, vi } from 'vitest';
import { staticKeys } from './auth.js';
import { openApiDocument } from './openapi.js';
import { createAgentRouter } from './router.js';
import { ROUTES } from './routes.js';

// The route table is the one place the API is declared: these tests check that the router and the
// document both follow it, whatever it holds.

const ALL = 'key-all-0123456789abcdef';
const NONE = 'key-none-0123456789abcdef';
const METHODS = ['GET', 'HEAD', 'POST', 'PATCH', 'PUT', 'DELETE'] as const;
const url = (path: string) =>
  `/api/v1${path
    .replace('{agentId}', 'agt_nope')
    .replace('{sessionId}', 's1')
    .replace('{approvalId}', 'apr_1')
    .replace('{runId}', 'run_nope')}`;

function app() {
  const service = new AgentService({ store: new MemoryStore(), models: echoModels() });
  const app = express();
  app.use(
    '/api/v1',
    createAgentRouter(service, {
      resolveKey: staticKeys([
        { account: 'acme', key: ALL },
        { account: 'acme', key: NONE, scopes: [] },
      ]),
      logger: { error: () => {} },
    }),
  );
  return { app, service };
}

const send = (target: express.Express, method: string, path: string, key: string) =>
  request(target)[method.toLowerCase() as 'get'](url(path)).set('x-api-key', key);

describe('the route table is the single source of the API: the router', () => {
  test('every route is registered behind the scope the table names, and nothing else guards it', async () => {
    const { app: target, service } = app();
    const operations = [
      'createAgent',
      'listAgents',
      'getAgent',
      'updateAgent',
      'deleteAgent',
      'runAgent',
      'streamAgent',
      'respondToApproval',
      'streamApprovalResponse',
      'listSessions',
      'getSession',
      'deleteSession',
      'describeModels',
      'describeTools',
      'startRun',
      'getRun',
      'listRuns',
      'runEvents',
      'cancelRun',
    ] as const;
    const calls = operations.map((name) => vi.spyOn(service, name));
    const refused: Record<string, unknown> = {};
    // A key with no scope: a guarded route answers 403 naming its scope, and the service is never called.
    for (const route of ROUTES) {
      const denied = await send(target, route.method, route.path, NONE);
      refused[`${route.method.toUpperCase()} ${route.path}`] = denied.status === 403 ? denied.body : denied.status;
    }
    expect(calls.map((spy) => spy.mock.calls.length)).toStrictEqual(operations.map(() => 0));
    // A key with every scope reaches each route: no scope refusal, no 405, no unknown route.
    const reached: Record<string, boolean> = {};
    for (const route of ROUTES) {
      const allowed = await send(target, route.method, route.path, ALL).send(route.request ? {} : undefined);
      reached[`${route.method.toUpperCase()} ${route.path}`] =
        ![403, 405].includes(allowed.status) && !/^Route not found/.test(allowed.body.error ?? '');
    }
    expect(calls.some((spy) => spy.mock.calls.length > 0)).toBe(true);
    expect(refused).toStrictEqual(
      Object.fromEntries(
        ROUTES.map((route) => [
          `${route.method.toUpperCase()} ${route.path}`,
          route.scope === null
            ? 200
            : {
                success: false,
                error: `This API key lacks the ${route.scope} scope`,
                code: 'forbidden',
                status: 403,
              },
        ]),
      ),
    );
    expect(reached).toStrictEqual(
      Object.fromEntries(ROUTES.map((route) => [`${route.method.toUpperCase()} ${route.path}`, true])),
    );
  });

  test('every other method of a path is 405 with the Allow list of the table', async () => {
    const { app: target } = app();
    const paths = [...new Set(ROUTES.map((route) => route.path))];
    const answers: string[] = [];
    const expected: string[] = [];
    for (const path of paths) {
      const declared = ROUTES.filter((route) => route.path === path).map((route) => route.method.toUpperCase());
      if (declared.includes('GET')) declared.push('HEAD');
      const allow = METHODS.filter((method) => declared.includes(method)).join(', ');
      for (const method of METHODS.filter((m) => !declared.includes(m))) {
        const res = await send(target, method, path, ALL);
        answers.push(`${method} ${path}: ${res.status} ${res.headers.allow} ${res.body?.code ?? '(no body)'}`);
        // A HEAD answer has no body.
        expected.push(`${method} ${path}: 405 ${allow} ${method === 'HEAD' ? '(no body)' : 'method_not_allowed'}`);
      }
    }
    expect(answers).toStrictEqual(expected);
    expect(answers.length).toBeGreaterThan(0);
  });
});

describe('the route table is the single source of the API: the document and unknown paths', () => {
  test('every route is an operation of the OpenAPI document, and the document has no other', () => {
    const document = openApiDocument() as {
      paths: Record<string, Record<string, { operationId: string; security: { ApiKey: string[] }[] }>>;
    };
    const documented = Object.entries(document.paths).flatMap(([path, item]) =>
      Object.entries(item)
        .filter(([method]) => method !== 'parameters')
        .map(([method, operation]) => ({
          method,
          path,
          operationId: operation.operationId,
          scope: operation.security[0]?.ApiKey[0] ?? null,
        })),
    );
    expect(documented).toStrictEqual(
      ROUTES.map(({ method, path, operationId, scope }) => ({ method, path, operationId, scope })),
    );
  });

  test('a path the table does not list is 404 not_found', async () => {
    const res = await send(app().app, 'GET', '/agents/{agentId}/nothing', ALL);
    expect([res.status, res.body]).toStrictEqual([
      404,
      {
        success: false,
        error: 'Route not found: GET /api/v1/agents/agt_nope/nothing',
        code: 'not_found',
        status: 404,
      },
    ]);
  });
});
