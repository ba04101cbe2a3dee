import request from 'supertest';
import { expect, test } from 'vitest';
import { createApp } from './app.js';

test('the mounted example serves its own route and the agent API', async () => {
  const app = createApp('shop-key-0123456789');
  expect((await request(app).get('/')).text).toBe('my shop');
  const created = await request(app).post('/api/v1/agents').set('x-api-key', 'shop-key-0123456789').send({ name: 'Helper', instruction: 'Help.', model: 'echo' });
  const run = await request(app).post(`/api/agents/${created.body.data.agent_id}/run`).set('x-api-key', 'shop-key-0123456789').send({ input: 'hi' });
  expect([run.status, run.body.data.output]).toStrictEqual([200, 'Echo: hi']);
});
