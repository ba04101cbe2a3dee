import { randomBytes } from 'node:crypto';
import { AgentService, ApiKeyService, type ToolProvider } from '@agenthost/core';
import {
  type AgentMetrics,
  anyKey,
  createMetrics,
  type KeyResolver,
  managedKeys,
  staticKeys,
} from '@agenthost/express';
import { loadDeploymentSecret, type OpenedStore, openStore } from '@agenthost/storage';
import { builtinTools, combineTools, type McpToolProvider, mcpTools } from '@agenthost/tools';
import type { Logger } from 'pino';
import type { KeyEntry, ServerConfig } from './config.js';
import { storageErrorLog } from './logging.js';
import { modelsFor } from './models.js';
import { claimStore } from './store-claim.js';

/** What a host is made of, before any HTTP: the store, the service, the keys and the metrics. */
export interface HostResources {
  store: OpenedStore;
  service: AgentService;
  tools: ToolProvider;
  keys: ApiKeyService;
  /** The deployment secret (configured, else the one kept in the store). */
  secret: string;
  managedKeyCount: number;
  devKey: KeyEntry | undefined;
  resolveKey: KeyResolver;
  metrics: AgentMetrics | undefined;
  /**
   * Closes the service: ends the run event readings open on it at once, and stops its background runs
   * after waiting up to `graceMs` for them to finish. Only the first call's `graceMs` counts.
   */
  closeService(graceMs: number): Promise<void>;
  /**
   * Closes the service as {@link closeService} does (or waits for its closing already under way),
   * then closes the store, the MCP servers and the store's claim.
   */
  close(graceMs?: number): Promise<void>;
}

/** Runs `step`; when it throws, closes what was opened before it and throws again. */
async function orClose<T>(step: () => Promise<T>, opened: (() => Promise<unknown> | undefined)[]): Promise<T> {
  try {
    return await step();
  } catch (error) {
    await Promise.all(opened.map((close) => Promise.resolve(close()).catch(() => {})));
    throw error;
  }
}

/** The service the configuration describes, its runs observed by the metrics and traced when tracing is on. */
async function serviceFor(
  config: ServerConfig,
  store: OpenedStore,
  tools: ToolProvider,
  metrics: AgentMetrics | undefined,
) {
  const { limits } = config;
  // The AI SDK's OpenTelemetry integration is loaded only when tracing is on.
  const telemetry = config.tracing && {
    enabled: true,
    recordContent: config.traceContent,
    integrations: [new (await import('@ai-sdk/otel')).OpenTelemetry()],
  };
  return new AgentService({
    ...(metrics && { onRunFinished: (observation) => metrics.observeRun(observation) }),
    ...(telemetry && { telemetry }),
    store: store.store,
    models: modelsFor(config.providers),
    tools,
    locks: store.locks,
    runWaitMs: config.runWaitMs,
    // Background runs live where the store is, so every server sharing it sees them and their signals.
    runs: store.runs,
    backgroundRuns: config.backgroundRuns,
    maxInputChars: limits.maxInputChars,
    maxOutputTokens: limits.maxOutputTokens,
    maxToolSteps: limits.maxToolSteps,
    providerTimeoutMs: limits.providerTimeoutMs,
    maxRetries: limits.providerRetries,
  });
}

/**
 * The keys: the configured ones, the ones issued into the store, and a development key only when
 * nobody has any other way in. `secrets` gets the development key, so no log may hold it.
 */
async function keysFor(config: ServerConfig, store: OpenedStore, secrets: string[]) {
  const secret = config.secret ?? (await loadDeploymentSecret(store.store));
  const keys = new ApiKeyService({ store: store.store, secret });
  const managedKeyCount = (await keys.listKeys()).filter((k) => !k.revoked_at).length;
  const devKey =
    config.apiKeys || managedKeyCount > 0
      ? undefined
      : { account: 'default', key: `ah_dev_${randomBytes(24).toString('base64url')}` };
  if (devKey) secrets.push(devKey.key);
  const configured = config.apiKeys ?? (devKey ? [devKey] : []);
  const resolveKey = configured.length ? anyKey(staticKeys(configured), managedKeys(keys)) : managedKeys(keys);
  return { secret, keys, managedKeyCount, devKey, resolveKey };
}

/** Opens everything a host needs; on failure, closes what it opened. */
export async function openHostResources(
  config: ServerConfig,
  logger: Logger,
  secrets: string[],
): Promise<HostResources> {
  const release = await claimStore(config.store);
  const store = await orClose(
    () =>
      openStore(config.store, {
        namespace: config.storeNamespace,
        unsafeInProcessLocksOnly: config.unsafeDisableLocks,
        lockLeaseMs: config.lockLeaseMs,
        onError: storageErrorLog(logger, secrets),
      }),
    [release],
  );
  // Node loads its fetch implementation on first use (tens of milliseconds on one thread): now, not
  // during the first request that calls a model.
  new Headers();
  const mcp: McpToolProvider | undefined = await orClose(
    async () => (Object.keys(config.mcpServers).length ? await mcpTools(config.mcpServers) : undefined),
    [store.close, release],
  );
  const closeAll = [() => store.close(), () => mcp?.close(), release];
  const tools = combineTools(
    builtinTools({ tavilyApiKey: config.tavilyApiKey, tavilyBaseURL: config.tavilyBaseURL }),
    ...(mcp ? [mcp] : []),
  );
  // Each loads a package on first use: one that fails to load closes what was opened, as any step here.
  const { metrics, service } = await orClose(async () => {
    const metrics = config.metrics ? createMetrics() : undefined;
    return { metrics, service: await serviceFor(config, store, tools, metrics) };
  }, closeAll);
  metrics?.observeBackgroundRuns(() => service.backgroundRunCounts());
  const keys = await orClose(() => keysFor(config, store, secrets), [() => service.close(), ...closeAll]);
  let serviceClosing: Promise<void> | undefined;
  const closeService = (graceMs: number) => {
    serviceClosing ??= service.close({ graceMs }).catch(() => {});
    return serviceClosing;
  };
  return {
    store,
    service,
    tools,
    metrics,
    ...keys,
    closeService,
    close: async (graceMs = 0) => {
      // The claim is dropped whatever else fails, so this process (or another) can open the file again.
      try {
        // Runs still going write their end to the store, so they stop before it closes.
        await closeService(graceMs);
        await Promise.all([store.close(), mcp?.close()]);
      } finally {
        await release();
      }
    },
  };
}
