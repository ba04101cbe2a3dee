// Test support (not shipped): a router with the echo model and a fake OpenAI model that answers
// `{"v": <input>}`, listening on loopback, for the json_format tests.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AgentService, combineModels, echoModels, openAIModels } from '@agenthost/core';
import { startFakeOpenAIServer } from '@agenthost/core/test';
import { MemoryStore } from '@agenthost/storage';
import express from 'express';
import { staticKeys } from './auth.js';
import { createHealthRouter } from './health.js';
import { createAgentRouter } from './router.js';

export interface JsonFormatServer {
  /** The origin, e.g. `http://127.0.0.1:1234` (`/healthz` is served there). */
  origin: string;
  /** Runs `json_format` for an account on an agent of `model` (made on first use), with `input`. */
  run(
    account: string,
    jsonFormat: unknown,
    input?: string,
    model?: string,
  ): Promise<{ status: number; body: Record<string, any> }>;
  close(): Promise<void>;
}

/** Starts the fixture; `keys` maps account names to their keys. */
export async function startJsonFormatServer(keys: Record<string, string>): Promise<JsonFormatServer> {
  const fake = await startFakeOpenAIServer({
    reply: (request) => ({ text: JSON.stringify({ v: request.messages.at(-1)?.content ?? '' }) }),
  });
  const models = combineModels(
    echoModels(),
    openAIModels({ apiKey: 'sk-test', baseURL: fake.baseURL, api: 'chat', models: ['gpt-4o-mini'] }),
  );
  const service = new AgentService({ store: new MemoryStore(), models, maxRetries: 0 });
  const app = express();
  app.use(createHealthRouter());
  const resolveKey = staticKeys(Object.entries(keys).map(([account, key]) => ({ account, key })));
  app.use('/api/v1', createAgentRouter(service, { resolveKey, logger: { error: () => {} } }));
  const server: Server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const call = async (account: string, path: string, body: unknown) => {
    const res = await fetch(`${origin}/api/v1${path}`, {
      method: 'POST',
      headers: { 'x-api-key': keys[account]!, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Record<string, any> };
  };
  const agents = new Map<string, Promise<string>>();
  const agent = (account: string, model: string) => {
    const key = `${account}:${model}`;
    if (!agents.has(key))
      agents.set(
        key,
        call(account, '/agents', { name: 'J', instruction: 'Answer in JSON.', model }).then(
          (r) => r.body.data.agent_id as string,
        ),
      );
    return agents.get(key)!;
  };
  return {
    origin,
    run: async (account, json_format, input = 'hello', model = 'echo') =>
      call(account, `/agents/${await agent(account, model)}/run`, { input, json_format }),
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await fake.close();
    },
  };
}

/** The 400 a refused `json_format` answers. */
export const formatError = (message: string) => ({
  success: false,
  error: 'Invalid request format',
  code: 'invalid_input',
  details: { json_format: { message, path: ['json_format'] } },
  status: 400,
});
