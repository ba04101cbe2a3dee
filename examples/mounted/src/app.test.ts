import request from 'supertest';
import { expect, test } from 'vitest';
import { createApp } from './app.js';

const KEY = 'shop-key-0123456789';

test('the mounted example serves its own route and the agent API', async () => {
  const app = createApp(KEY);
  expect((await request(app).post('/orders').send({ item: 'tea' })).body).toStrictEqual({ ordered: 'tea' });
  const created = await request(app)
    .post('/api/v1/agents')
    .set('x-api-key', KEY)
    .send({ name: 'Helper', instruction: 'Help.', model: 'echo' });
  const run = await request(app)
    .post(`/api/agents/${created.body.data.agent_id}/run`)
    .set('x-api-key', KEY)
    .send({ input: 'hi' });
  expect([run.status, run.body.data.output]).toStrictEqual([200, 'Echo: hi']);
});

test('malformed JSON sent to the API gets an envelope, not the app’s HTML error page', async () => {
  const res = await request(createApp(KEY))
    .post('/api/v1/agents')
    .set('x-api-key', KEY)
    .set('content-type', 'application/json')
    .send('{"name":');
  expect([res.status, res.body]).toStrictEqual([
    400,
    {
      success: false,
      error: 'Malformed JSON in request body: send one JSON object',
      code: 'invalid_json',
      status: 400,
    },
  ]);
});
