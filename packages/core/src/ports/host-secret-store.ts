/**
 * The host secret port, implemented by every agenthost store: it keeps the deployment secret that a
 * host generated because none was configured, so that every server sharing the store hashes API keys
 * under the same secret, and a restart keeps it.
 *
 * A backend must guarantee that creation is atomic across every process sharing it: of any number of
 * concurrent `createHostSecret` calls, on any of those processes, exactly one candidate is kept and
 * every call resolves with that one. Once kept, the secret is never changed by this port, and every
 * process reads it (read-your-writes).
 */
export interface HostSecretStore {
  /** The kept secret, or `undefined` when none was created yet. */
  getHostSecret(): Promise<string | undefined>;
  /** Keeps `candidate` unless a secret is kept already; resolves with the secret kept, which every caller then uses. */
  createHostSecret(candidate: string): Promise<string>;
}
