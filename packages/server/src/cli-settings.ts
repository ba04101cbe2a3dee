import { ConfigError, loadConfig, type ServerConfig } from './config.js';
import { unknownVariableWarnings } from './unknown-variables.js';

/** Prints `agenthost: <message>` to standard error and exits with `code`. */
export function fail(message: string, code = 1): never {
  process.stderr.write(`agenthost: ${message}\n`);
  process.exit(code);
}

/**
 * The settings a command reads from the environment: likely typos warned about first, then a
 * setting with an error stops the command with status 2 and a message naming the variable.
 */
export function settingsOrExit(env: Record<string, string | undefined>, hint = ''): ServerConfig {
  for (const warning of unknownVariableWarnings(env)) process.stderr.write(`agenthost: warning: ${warning}\n`);
  try {
    return loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) fail(`${error.message}${hint}`, 2);
    throw error;
  }
}
