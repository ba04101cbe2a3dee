// Test support of this package's HTTP tests (not exported): the router served on a free local port.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AgentService } from '@agenthost/core';
import express from 'express';
import { type AgentRouterOptions, createAgentRouter } from './router.js';

/** A router served for a test: its base URL (`http://127.0.0.1:<port>/api/v1`), and how to stop it. */
export interface ServedRouter {
  base: string;
  server: Server;
  /** Closes every connection and the server. */
  close(): Promise<void>;
}

/** Serves `createAgentRouter(service, options)` at `/api/v1` of a bare Express app on a free port of 127.0.0.1. */
export async function serveRouter(service: AgentService, options: AgentRouterOptions): Promise<ServedRouter> {
  const router = createAgentRouter(service, options);
  const app = express();
  app.use('/api/v1', router, router.errorHandler);
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1`,
    server,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
