// agenthost's router mounted in an Express 5 app, as the doc comment of `createAgentRouter` shows
// it: an AgentService over a MemoryStore (or the store given with --store) and the mock model as its
// model provider, one key, the router's defaults (idempotency records in this process, no rate limits, no metrics).
//
// Started by bench/run-route.mjs; prints `listening on <url> agent <id>` once it listens on a free
// loopback port, and exits on SIGTERM.
//
//   node bench/run-route/mounted-app.mjs <api-key> [store location] [store namespace]
import { INSTRUCTION } from './conversation.mjs';
import { express, MOCK_MODEL_NAME, mockModel, packages } from './deps.mjs';

const [apiKey, location = 'memory', namespace] = process.argv.slice(2);
const { AgentService, staticModels } = await packages.core();
const { createAgentRouter, staticKeys } = await packages.express();
const { MemoryStore, openStore } = await packages.storage();

const models = staticModels({ [MOCK_MODEL_NAME]: mockModel() });
const opened = location === 'memory' ? undefined : await openStore(location, { namespace });
const service = new AgentService(
  opened
    ? { store: opened.store, locks: opened.locks, runs: opened.runs, models }
    : { store: new MemoryStore(), models },
);
const agent = await service.createAgent('bench', {
  name: 'bench agent',
  instruction: INSTRUCTION,
  model: MOCK_MODEL_NAME,
});

const app = express();
const router = createAgentRouter(service, { resolveKey: staticKeys([{ account: 'bench', key: apiKey }]) });
app.use(['/api/v1', '/api'], router, router.errorHandler);

const server = app.listen(0, '127.0.0.1', () => {
  process.stdout.write(`listening on http://127.0.0.1:${server.address().port}/api/v1 agent ${agent.agent_id}\n`);
});
process.once('SIGTERM', () => {
  server.closeAllConnections();
  server.close(async () => {
    await opened?.close();
    process.exit(0);
  });
});
