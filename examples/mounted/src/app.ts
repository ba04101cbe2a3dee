import { AgentService, echoModels } from '@agenthost/core';
import { createAgentRouter, staticKeys } from '@agenthost/express';
import { MemoryStore } from '@agenthost/storage';
import express from 'express';

/** An existing app with routes of its own, and the agenthost API mounted under /api/v1 and /api. */
export function createApp(apiKey: string): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.get('/', (_req, res) => {
    res.send('my shop');
  });

  const service = new AgentService({ store: new MemoryStore(), models: echoModels() });
  const agents = createAgentRouter(service, { resolveKey: staticKeys([{ account: 'shop', key: apiKey }]) });
  app.use(['/api/v1', '/api'], agents);
  return app;
}
