// The floor of the run-route benchmark: a bare Express 5 app that does the least a run route must do.
//
//   POST /agents/:agentId/run   {input, session_id?}: the session's history from a Map, `generateText`
//                               on the mock model with the agent's instruction, the turn appended
//   GET  /agents/:agentId       a stored agent record (the same fields agenthost answers) from a Map
//
// No keys, validation, limits, locks, copies or logs. `generateText` runs with the SDK's defaults, or
// with its telemetry off (as agenthost calls it when its own telemetry is off) when started with
// `telemetry-off`; with `yield`, it goes on with each request on the event loop's next turn
// (`setImmediate`), as agenthost's router does. Started by bench/run-route.mjs; prints
// `listening on <url> agent <id>` once it listens on a free loopback port, and exits on SIGTERM.
//
//   node bench/run-route/floor-app.mjs [telemetry-off] [yield]
import { randomUUID } from 'node:crypto';
import { INSTRUCTION } from './conversation.mjs';
import { ai, express, MOCK_MODEL_NAME, mockModel } from './deps.mjs';

const model = mockModel();
const flags = new Set(process.argv.slice(2));
const settings = flags.has('telemetry-off') ? { telemetry: { isEnabled: false } } : {};
const agentId = `agt_${randomUUID()}`;
const now = new Date().toISOString();
const config = {
  agent_id: agentId,
  name: 'bench agent',
  instruction: INSTRUCTION,
  model: MOCK_MODEL_NAME,
  tool: null,
  tools: [],
  require_approval: [],
  component: 'Chat',
  temperature: null,
  top_p: null,
  max_output_tokens: null,
  fallback_models: [],
  metadata: {},
};
const record = {
  agent_id: agentId,
  name: config.name,
  config,
  metadata: {},
  version: 1,
  created_at: now,
  updated_at: now,
};
const agents = new Map([[agentId, record]]);
const sessions = new Map();

const app = express();
if (flags.has('yield')) app.use((_req, _res, next) => setImmediate(next));
app.use(express.json());

app.post('/agents/:agentId/run', async function floorRun(req, res) {
  const agent = agents.get(req.params.agentId);
  if (!agent) return res.status(404).json({ error: 'agent not found' });
  const { input, session_id: given } = req.body ?? {};
  if (typeof input !== 'string') return res.status(400).json({ error: 'input must be a string' });
  const sessionId = given ?? randomUUID();
  const history = given === undefined ? [] : sessions.get(given);
  if (!history) return res.status(404).json({ error: 'session not found' });
  const user = { role: 'user', content: input };
  const result = await ai.generateText({
    ...settings,
    model,
    system: agent.config.instruction,
    messages: [...history, user],
  });
  history.push(user, { role: 'assistant', content: result.text });
  sessions.set(sessionId, history);
  res.json({ data: { output: result.text, session_id: sessionId } });
});

app.get('/agents/:agentId', (req, res) => {
  const agent = agents.get(req.params.agentId);
  if (!agent) return res.status(404).json({ error: 'agent not found' });
  res.json({ data: agent });
});

const server = app.listen(0, '127.0.0.1', () => {
  process.stdout.write(`listening on http://127.0.0.1:${server.address().port} agent ${agentId}\n`);
});
process.once('SIGTERM', () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
});
