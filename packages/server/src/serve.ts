import { redactSecrets } from '@agenthost/core';
import { modelLines } from './banner.js';
import { fail, settingsOrExit } from './cli-settings.js';
import type { ServerConfig } from './config.js';
import { type AgentHost, buildHost } from './host.js';
import { type LineWriter, nonBlockingLines } from './line-writer.js';
import { configuredSecrets } from './secrets.js';

/** Why the host could not be built: a store or an MCP server that cannot be reached may quote its URL, credentials included. */
function cannotBuild(error: Error, config: ServerConfig): string {
  return redactSecrets(error.message, { secrets: configuredSecrets(config) });
}

/** Why the server could not listen, in words that name the setting to change. */
function cannotListen(error: NodeJS.ErrnoException, config: ServerConfig): string {
  if (error.code === 'EADDRINUSE') return `port ${config.port} on ${config.host} is already in use (set PORT)`;
  if (error.code === 'ENOTFOUND' || error.code === 'EADDRNOTAVAIL' || error.code === 'EAI_AGAIN')
    return `HOST=${config.host} is not an address of this machine (${error.code}); set HOST, e.g. 127.0.0.1 or 0.0.0.0`;
  return cannotBuild(error, config);
}

function storeNote(kind: string): string {
  if (kind === 'memory') return ' (agents and conversations last until the server stops)';
  if (kind === 'sqlite') return ' (one server per file)';
  return ' (shared: run as many servers as you like on it)';
}

/** The banner: where the server listens, its models, tools, pages, store and keys. */
function banner(host: AgentHost, url: string): string[] {
  const { config } = host;
  const origin = url.replace(/\/api\/v1$/, '');
  const lines = [
    `agenthost listening on ${url}`,
    ...modelLines(host.service.describeModels()),
    `  tools: ${host.tools.join(', ')}`,
    `  reference: ${origin}/docs (OpenAPI at ${url}/openapi.json)`,
    ...(config.playground ? [`  playground: ${origin}/playground/`] : []),
    ...(config.tracing
      ? [
          `  traces: OTLP/HTTP to ${process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? process.env.OTEL_EXPORTER_OTLP_ENDPOINT ?? 'http://localhost:4318'}`,
        ]
      : []),
    ...(config.metrics
      ? [`  metrics: ${origin}/metrics${config.metricsToken ? ' (needs the metrics token)' : ''}`]
      : []),
    `  store: ${host.store.description}${storeNote(host.store.kind)}`,
  ];
  if (config.unsafeDisableLocks)
    lines.push('  WARNING: AGENTHOST_UNSAFE_DISABLE_LOCKS=true: servers sharing this store will lose writes');
  lines.push(
    `  keys: ${config.apiKeys?.length ?? 0} configured, ${host.managedKeyCount} issued (agenthost keys create --account <name>)`,
  );
  if (host.devKey)
    lines.push(
      `  development API key for account "${host.devKey.account}": ${host.devKey.key}`,
      '  (made for this run only and not shown again; set AGENTHOST_API_KEYS to choose keys)',
    );
  return lines;
}

/** How long the server waits, when it stops, for its log lines to be written. */
const LINES_DRAIN_MS = 2000;

/**
 * On SIGINT or SIGTERM: finish the requests in flight (up to the shutdown deadline), wait for the log
 * lines to be written (`drainLogs`), then exit.
 */
function stopOnSignals(host: AgentHost, drainLogs: () => Promise<void>): void {
  let stopping = false;
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      if (stopping) return;
      stopping = true;
      process.stdout.write(
        `agenthost: ${signal} received, finishing in-flight requests and background runs (up to ${host.config.shutdownTimeoutMs} ms)\n`,
      );
      host.close().then(
        async ({ aborted }) => {
          await drainLogs();
          if (aborted)
            process.stdout.write(
              `agenthost: aborted ${aborted} request(s) still running at the deadline; nothing of them was stored\n`,
            );
          process.stdout.write('agenthost: stopped\n');
          process.exit(0);
        },
        (error: Error) => fail(`error while stopping: ${error.message}`, 1),
      );
    });
  }
}

/**
 * `agenthost serve`: the standalone server, configured by the environment. Settings with errors stop
 * it with status 2; a store, port or address it cannot use, with status 1.
 */
export async function serve(env: Record<string, string | undefined>): Promise<void> {
  // Its messages are for whoever reads them: a reader that went away (EPIPE) must not stop the server.
  for (const stream of [process.stdout, process.stderr]) stream.on('error', () => {});
  const config = settingsOrExit(env, '\nRun with --help for the list of settings.');
  // The process is the server's own: its log lines go out without blocking it (line-writer.ts).
  let lines: LineWriter | undefined;
  const drainLogs = async () => {
    await lines?.drain(LINES_DRAIN_MS);
  };
  const host = await buildHost(config, {}, () => (lines = nonBlockingLines())).catch(async (error: Error) => {
    await drainLogs();
    return fail(`cannot start: ${cannotBuild(error, config)}`, 1);
  });
  try {
    const { url } = await host.listen();
    // Before the banner: whoever reads it to know the server is up may signal it at once.
    stopOnSignals(host, drainLogs);
    process.stdout.write(`${banner(host, url).join('\n')}\n`);
  } catch (error) {
    await host.close({ deadlineMs: 0 }).catch(() => {});
    await drainLogs();
    fail(`cannot start: ${cannotListen(error as NodeJS.ErrnoException, config)}`, 1);
  }
}
