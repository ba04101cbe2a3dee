import { AgentService, echoModels } from '@agenthost/core';
import { createAgentRouter, staticKeys } from '@agenthost/express';
import { MemoryStore } from '@agenthost/storage';
import express from 'express';

/** An existing app with routes and a JSON body parser of its own, and the agenthost API mounted under /api/v1 and /api. */
export function createApp(apiKey: string): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.use(express.json());
  app.post('/orders', (req, res) => {
    res.json({ ordered: req.body.item });
  });

  const service = new AgentService({ store: new MemoryStore(), models: echoModels() });
  const agents = createAgentRouter(service, { resolveKey: staticKeys([{ account: 'shop', key: apiKey }]) });
  // The app parses bodies before the router sees them; the error handler answers that parser's
  // refusals (malformed JSON, too large) for the API with envelopes too.
  app.use(['/api/v1', '/api'], agents, agents.errorHandler);
  return app;
}
