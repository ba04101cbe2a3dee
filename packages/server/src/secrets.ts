import type { ServerConfig } from './config.js';
import type { ProviderEntry } from './providers-config.js';

function decoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** A URL's password as written and decoded: error messages may quote either. */
function passwordOf(location: string | undefined): string[] {
  let password = '';
  try {
    password = location ? new URL(location).password : '';
  } catch {
    // Not a URL (memory, a path): no credentials in it.
  }
  return password ? [password, decoded(password)] : [];
}

/** An MCP server's environment values, header values (and the token after a scheme) and URL password. */
function mcpSecrets(server: ServerConfig['mcpServers'][string]): string[] {
  if ('command' in server) return Object.values(server.env ?? {});
  const headers = Object.values(server.headers ?? {});
  const tokens = headers.flatMap((value) => value.split(/\s+/).filter((part) => !/^(bearer|basic|token)$/i.test(part)));
  return [...headers, ...tokens, ...passwordOf(server.url)];
}

/** Every configured model provider's settings. */
function providerEntries({ providers }: ServerConfig): ProviderEntry[] {
  return [providers.openai, providers.anthropic, providers.google, ...Object.values(providers.compatible)].filter(
    (entry): entry is ProviderEntry => entry !== undefined,
  );
}

/**
 * Every secret the configuration holds, for the logs to redact wherever it appears: the API keys, the
 * model providers' and Tavily's keys, the metrics token, passwords in the store's and the providers' URLs, and MCP
 * servers' environment values, header values and URL passwords.
 */
export function configuredSecrets(config: ServerConfig): string[] {
  const all = [
    ...(config.apiKeys ?? []).map((entry) => entry.key),
    config.tavilyApiKey,
    config.metricsToken,
    ...passwordOf(config.store),
    ...providerEntries(config).flatMap((entry) => [entry.apiKey, ...passwordOf(entry.baseURL)]),
    ...passwordOf(config.tavilyBaseURL),
    ...Object.values(config.mcpServers).flatMap(mcpSecrets),
  ];
  return [...new Set(all.filter((secret): secret is string => typeof secret === 'string' && secret !== ''))];
}
