import { randomBytes } from 'node:crypto';
import type { HostSecretStore } from '@agenthost/core';

/** A new deployment secret: 32 random bytes, base64url (43 characters). */
export function generateDeploymentSecret(): string {
  return randomBytes(32).toString('base64url');
}

/**
 * The deployment secret kept in the store; when there is none yet, a new one
 * ({@link generateDeploymentSecret}) is kept and returned. Every server sharing the store gets the
 * same one, also when several start at once, and a restart finds it again. Prefer a configured
 * secret when there is one: a store's dump holds the secret it keeps.
 *
 * @example
 * const secret = process.env.AGENTHOST_SECRET ?? (await loadDeploymentSecret(opened.store));
 * const keys = new ApiKeyService({ store: opened.store, secret });
 */
export async function loadDeploymentSecret(store: HostSecretStore): Promise<string> {
  return (await store.getHostSecret()) ?? store.createHostSecret(generateDeploymentSecret());
}
