import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

/** The SQLite file the server and the keys CLI use when `AGENTHOST_STORE` is unset, inside the home folder. */
export const DEFAULT_STORE_FILE = 'agenthost.sqlite';

/** The user's home folder: `HOME`, else the operating system's idea of it. */
const userHome = (env: Record<string, string | undefined>) => env.HOME?.trim() || homedir();

/**
 * agenthost's home folder: `AGENTHOST_HOME` when set, else `.agenthost` in the user's home folder.
 * A leading `~` is the user's home folder (files such as systemd's `EnvironmentFile` do not expand
 * it); any other relative path is taken from the working directory. One setting, so the server and
 * the keys CLI find the same store wherever they are started.
 */
export function agentHostHome(env: Record<string, string | undefined>): string {
  const home = env.AGENTHOST_HOME?.trim();
  if (!home) return join(userHome(env), '.agenthost');
  if (home === '~' || home.startsWith('~/')) return join(userHome(env), home.slice(1));
  return resolve(home);
}

/** The default store location: `sqlite://<home>/agenthost.sqlite` (see {@link agentHostHome}). */
export function defaultStore(env: Record<string, string | undefined>): string {
  return `sqlite://${join(agentHostHome(env), DEFAULT_STORE_FILE)}`;
}
