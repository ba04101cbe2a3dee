// Test support: a host from validated settings, listening on its own, for tests that need a real server.
import type { Server } from 'node:http';
import { pino } from 'pino';
import type { ServerConfig } from './config.js';
import { type AgentHost, type AgentHostExtras, buildHost } from './host.js';

/** A host listening on its own. */
export interface RunningServer extends Omit<AgentHost, 'close'> {
  /** Base URL of the API, e.g. `http://127.0.0.1:3000/api/v1`. */
  url: string;
  server: Server;
  /** Shuts down as {@link AgentHost.close} does, with `deadlineMs` as the deadline. */
  close(deadlineMs?: number): Promise<{ aborted: number }>;
}

/**
 * Builds a host from validated settings and starts it listening; when it cannot listen, what it opened
 * is closed again. Without a logger it logs nothing (the `agenthost serve` command passes one).
 */
export async function startServer(config: ServerConfig, extras: AgentHostExtras = {}): Promise<RunningServer> {
  const host = await buildHost(config, { requestLog: false, logger: pino({ level: 'silent' }), ...extras });
  let listening: { url: string; server: Server };
  try {
    listening = await host.listen();
  } catch (error) {
    await host.close({ deadlineMs: 0 }).catch(() => {});
    throw error;
  }
  return { ...host, ...listening, close: (deadlineMs) => host.close(deadlineMs === undefined ? {} : { deadlineMs }) };
}
