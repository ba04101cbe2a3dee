// A standalone agenthost server: the host configured by the environment (PORT, AGENTHOST_STORE, ...,
// see `agenthost --help`), listening, and stopped gracefully on SIGINT or SIGTERM.
import { createAgentHost, optionsFromEnv } from '@agenthost/server';

const host = await createAgentHost(optionsFromEnv(process.env));
const { url } = await host.listen();
console.log(`agenthost listening on ${url}`);
if (host.devKey) console.log(`development API key for account "${host.devKey.account}": ${host.devKey.key}`);

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, async () => {
    // Requests in flight get until AGENTHOST_SHUTDOWN_TIMEOUT_MS to finish; then the store closes.
    const { aborted } = await host.close();
    console.log(`stopped (${aborted} request(s) cut off)`);
    process.exit(0);
  });
}
