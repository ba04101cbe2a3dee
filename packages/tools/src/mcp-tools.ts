import type { ToolProvider } from '@agenthost/core';
import type { MCPClient } from '@ai-sdk/mcp';
import type { ToolSet } from 'ai';

/** An MCP server started as a child process and spoken to over its stdin and stdout. */
export interface McpStdioServerConfig {
  /** The executable, e.g. `npx` or `node`. Run without a shell. */
  command: string;
  args?: string[];
  /**
   * Extra environment variables. The child gets only these plus HOME, LOGNAME, PATH, SHELL, TERM and
   * USER from this process, so the host's secrets do not leak into it.
   */
  env?: Record<string, string>;
  /** The working directory (default: this process's). */
  cwd?: string;
}

/** An MCP server reached over the Streamable HTTP transport. */
export interface McpHttpServerConfig {
  /** The server's MCP endpoint, e.g. `https://mcp.example.com/mcp`. */
  url: string;
  /** Headers sent with every request, e.g. `{ Authorization: 'Bearer ...' }`. */
  headers?: Record<string, string>;
}

/** How to reach one MCP server. */
export type McpServerConfig = McpStdioServerConfig | McpHttpServerConfig;

/** Options of {@link mcpTools}. */
export interface McpToolsOptions {
  /** How long starting and initialising one server may take, in milliseconds (default 30000). */
  connectTimeoutMs?: number;
}

/** A tool provider over connected MCP servers; `close()` disconnects them and ends stdio processes. */
export interface McpToolProvider extends ToolProvider {
  /** Closes every client (ending stdio child processes). Safe to call more than once. */
  close(): Promise<void>;
}

const SERVER_NAME = /^[A-Za-z0-9_-]{1,64}$/;

interface Connected {
  name: string;
  client: MCPClient;
  tools: ToolSet;
}

/** The integration name under which the tools of MCP server `server` are offered. */
function integrationName(server: string): string {
  return `mcp:${server}`;
}

function isStdio(config: McpServerConfig): config is McpStdioServerConfig {
  return typeof (config as Partial<McpStdioServerConfig>).command === 'string';
}

function validate(name: string, config: McpServerConfig): void {
  if (!SERVER_NAME.test(name)) {
    throw new TypeError(
      `Invalid MCP server name ${JSON.stringify(name.slice(0, 80))}: use 1 to 64 letters, digits, "_" or "-"`,
    );
  }
  const hasCommand = typeof (config as Partial<McpStdioServerConfig>)?.command === 'string';
  const hasUrl = typeof (config as Partial<McpHttpServerConfig>)?.url === 'string';
  if (hasCommand === hasUrl) {
    throw new TypeError(
      `MCP server "${name}" needs either a "command" (stdio) or a "url" (HTTP), not ${hasCommand ? 'both' : 'neither'}`,
    );
  }
  if (hasCommand && !(config as McpStdioServerConfig).command.trim())
    throw new TypeError(`MCP server "${name}" has an empty command`);
  if (hasUrl) {
    let protocol: string | undefined;
    try {
      protocol = new URL((config as McpHttpServerConfig).url).protocol;
    } catch {
      // Reported below without echoing the URL, which may carry a token.
    }
    if (protocol !== 'http:' && protocol !== 'https:')
      throw new TypeError(`MCP server "${name}" needs an http or https URL`);
  }
}

/** Values that must not appear in an error message: env values, header values, URL credentials and query. */
function secretsOf(config: McpServerConfig): string[] {
  const secrets: string[] = [];
  if (isStdio(config)) {
    secrets.push(...Object.values(config.env ?? {}));
  } else {
    secrets.push(...Object.values(config.headers ?? {}));
    // "Bearer abc": redact the token on its own too, but not the scheme word.
    for (const value of Object.values(config.headers ?? {}))
      secrets.push(...value.split(/\s+/).filter((part) => !/^(bearer|basic|token)$/i.test(part)));
    try {
      const url = new URL(config.url);
      secrets.push(url.username, url.password, url.search.slice(1), ...[...url.searchParams.values()]);
    } catch {
      // validate() already refused it.
    }
  }
  // Very short values would redact ordinary words; they are not credentials anyway.
  return secrets.filter((s) => s.length >= 4).sort((a, b) => b.length - a.length);
}

function reason(error: unknown, secrets: readonly string[]): string {
  let text = error instanceof Error ? error.message : String(error);
  const code =
    (error as { code?: unknown; cause?: { code?: unknown } })?.code ??
    (error as { cause?: { code?: unknown } })?.cause?.code;
  if (typeof code === 'string' && !text.includes(code)) text += ` (${code})`;
  for (const secret of secrets) text = text.replaceAll(secret, '[redacted]');
  text = text.replace(/\s+/g, ' ').trim();
  return text.length > 300 ? `${text.slice(0, 299)}…` : text;
}

/** The text of an MCP tool result that reports an error (`isError: true`), or undefined for a success. */
function errorText(result: unknown): string | undefined {
  if (typeof result !== 'object' || result === null || (result as { isError?: unknown }).isError !== true)
    return undefined;
  const content = (result as { content?: unknown }).content;
  const texts = Array.isArray(content)
    ? content
        .filter(
          (part): part is { type: 'text'; text: string } => part?.type === 'text' && typeof part.text === 'string',
        )
        .map((part) => part.text)
    : [];
  return texts.join('\n').trim() || 'the tool reported an error without a message';
}

/**
 * MCP reports a failed tool call as a result with `isError: true`; the AI SDK passes such a result to
 * the model as ordinary output. Throwing instead makes it a tool error, which the model can tell apart.
 */
function withErrorResults(server: string, tools: ToolSet): ToolSet {
  // No prototype: a tool may be called anything, "__proto__" included.
  const wrapped = Object.create(null) as ToolSet;
  for (const [toolName, original] of Object.entries(tools)) {
    const execute = original.execute;
    if (!execute) {
      wrapped[toolName] = original;
      continue;
    }
    wrapped[toolName] = {
      ...original,
      execute: async (input: unknown, options: Parameters<typeof execute>[1]) => {
        const result: unknown = await execute(input as never, options);
        const message = errorText(result);
        if (message !== undefined) throw new Error(`MCP tool "${toolName}" on server "${server}" failed: ${message}`);
        return result;
      },
    } as ToolSet[string];
  }
  return wrapped;
}

async function connect(name: string, config: McpServerConfig, connectTimeoutMs: number): Promise<Connected> {
  const secrets = secretsOf(config);
  let client: MCPClient;
  try {
    // The MCP client is loaded when a first server is connected: a host without MCP servers does not hold it.
    const { createMCPClient } = await import('@ai-sdk/mcp');
    const { Experimental_StdioMCPTransport } = await import('@ai-sdk/mcp/mcp-stdio');
    client = await createMCPClient({
      clientName: 'agenthost',
      transport: isStdio(config)
        ? new Experimental_StdioMCPTransport({
            command: config.command,
            ...(config.args ? { args: config.args } : {}),
            ...(config.env ? { env: config.env } : {}),
            ...(config.cwd ? { cwd: config.cwd } : {}),
          })
        : { type: 'http', url: config.url, ...(config.headers ? { headers: config.headers } : {}) },
      initializationOptions: { timeout: connectTimeoutMs },
    });
  } catch (error) {
    const what = isStdio(config) ? `could not be started (command "${config.command}")` : 'could not be connected';
    throw new Error(`MCP server "${name}" ${what}: ${reason(error, secrets)}`);
  }
  try {
    const tools = await client.tools();
    return { name, client, tools: withErrorResults(name, tools as ToolSet) };
  } catch (error) {
    await client.close().catch(() => undefined);
    throw new Error(`MCP server "${name}" did not list its tools: ${reason(error, secrets)}`);
  }
}

/**
 * Connects to MCP servers and offers each one's tools as the integration `mcp:<server>`.
 * Servers with a `command` are started as child processes (stdio); servers with a `url` are reached
 * over Streamable HTTP. The tool list is read once, at connection.
 *
 * Rejects with an error naming the server (never its env or header values) when a name is invalid
 * or a server cannot be started, connected or listed; servers already connected are closed again.
 * A tool call that the server reports as failed is thrown, so the model receives it as a tool error.
 *
 * @example
 * const mcp = await mcpTools({ files: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', './data'] } });
 * const service = new AgentService({ ..., tools: combineTools(builtinTools(), mcp) });
 * // on shutdown: await mcp.close();
 */
export async function mcpTools(
  servers: Record<string, McpServerConfig>,
  options: McpToolsOptions = {},
): Promise<McpToolProvider> {
  const connectTimeoutMs = options.connectTimeoutMs ?? 30_000;
  const entries = Object.entries(servers);
  for (const [name, config] of entries) validate(name, config);

  const settled = await Promise.allSettled(entries.map(([name, config]) => connect(name, config, connectTimeoutMs)));
  const connected = settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  const failure = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (failure) {
    await Promise.allSettled(connected.map((c) => c.client.close()));
    throw failure.reason;
  }

  const byIntegration = new Map(connected.map((c) => [integrationName(c.name), c.tools]));
  const names = Object.freeze([...byIntegration.keys()]);
  let closing: Promise<void> | undefined;
  return {
    listTools: () => names,
    tools: (name) => byIntegration.get(name),
    close: () => {
      closing ??= Promise.allSettled(connected.map((c) => c.client.close())).then(() => undefined);
      return closing;
    },
  };
}
