// Background runs in the playground, in a real browser (Debian's Chromium driven by playwright-core):
// a run started with "Run in background" goes on through a reload, and the page reattaches to it.
// Skipped when /usr/bin/chromium is absent, except in CI (CI=true), where that is a failure.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type FakeOpenAIServer, startFakeOpenAIServer } from '@agenthost/core/test';
import { pino } from 'pino';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type AgentHost, createAgentHost } from './host.js';

const CHROMIUM = '/usr/bin/chromium';
const KEY = 'playground-background-key-0123456789';
const present = existsSync(CHROMIUM);
/** The slow answer: 30 pieces, 150 ms apart (4.5 s in all). */
const PIECES = Array.from({ length: 30 }, (_, i) => `piece${i} `);
const ANSWER = PIECES.join('');
const STORED_RUN = 'agenthost.playground.backgroundRun';

/** The text of each message shown, in order (a message's first paragraph is its text). */
const messageTexts = (page: Page) => page.locator('.messages article > p:first-child').allTextContents();
/** Waits until the last message shown (the answer being streamed) has `text` in it. */
const answerShows = (page: Page, text: string) =>
  expect
    .poll(async () => (await messageTexts(page)).at(-1), { timeout: 30_000 })
    .toEqual(expect.stringContaining(text));
/** The run the page keeps for a reload, as stored. */
const storedRun = (page: Page) => page.evaluate<string | null>(`sessionStorage.getItem(${JSON.stringify(STORED_RUN)})`);

/** Enters the key and creates an agent on the slow model. */
async function setup(page: Page, origin: string): Promise<void> {
  await page.goto(`${origin}/playground/`);
  await page.getByLabel('API key').fill(KEY);
  await page.getByRole('button', { name: 'Connect' }).click();
  await page.getByRole('button', { name: 'New agent' }).click();
  await page.getByLabel('Name', { exact: true }).fill('Slow');
  await page.getByLabel('Instruction', { exact: true }).fill('Take your time.');
  await page.getByLabel('Model', { exact: true }).selectOption('openai/slow');
  await page.getByRole('button', { name: 'Create agent' }).click();
  await page.getByLabel('Message', { exact: true }).waitFor();
}

/** Sends a message as a background run. */
async function sendInBackground(page: Page, text: string): Promise<void> {
  await page.getByLabel('Run in background', { exact: true }).check();
  await page.getByLabel('Message', { exact: true }).fill(text);
  await page.getByRole('button', { name: 'Send', exact: true }).click();
}

describe.runIf(present)('background runs in the playground', () => {
  let host: AgentHost;
  let fake: FakeOpenAIServer;
  let origin: string;
  let context: BrowserContext;
  let profile: string;
  const problems: string[] = [];

  beforeAll(async () => {
    fake = await startFakeOpenAIServer({
      reply: () => ({ text: ANSWER, chunks: PIECES, chunkDelayMs: 150, usage: { input: 4, output: 30 } }),
    });
    host = await createAgentHost(
      {
        store: 'memory',
        apiKeys: `acme:${KEY}`,
        port: 0,
        openaiBaseUrl: fake.baseURL,
        openaiModels: ['slow'],
      },
      { requestLog: false, logger: pino({ level: 'silent' }) },
    );
    origin = (await host.listen()).url.replace(/\/api\/v1$/, '');
    profile = mkdtempSync(join(tmpdir(), 'agenthost-chromium-'));
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run', '--disable-quic'],
    });
  });
  afterAll(async () => {
    await context?.close();
    await host?.close();
    await fake?.close();
    if (profile) rmSync(profile, { recursive: true, force: true });
  });

  test('a background run reloaded mid-answer shows the whole answer; one finished while away shows its result; one is cancelled', {
    timeout: 120_000,
  }, async () => {
    const page = await context.newPage();
    page.on('pageerror', (error) => problems.push(error.message));
    await setup(page, origin);

    await sendInBackground(page, 'tell me slowly');
    await answerShows(page, 'piece2 ');
    // The tab keeps the run, not its answer (a reattach reads the events from the first).
    expect(Object.keys(JSON.parse((await storedRun(page)) ?? '{}')).sort()).toStrictEqual([
      'agent_id',
      'input',
      'last_event_id',
      'run_id',
      'session_id',
    ]);
    expect(JSON.parse((await storedRun(page)) ?? '{}')).toMatchObject({ input: 'tell me slowly' });
    await page.reload();
    // Reattached: the agent and the session show again, and the rest of the answer arrives.
    await expect.poll(() => messageTexts(page), { timeout: 30_000 }).toStrictEqual(['tell me slowly', ANSWER]);
    // Once the run has ended, the page forgets it and shows the session as stored.
    await expect.poll(() => storedRun(page), { timeout: 30_000 }).toBeNull();
    await expect.poll(() => messageTexts(page)).toStrictEqual(['tell me slowly', ANSWER]);
    expect(fake.requests).toHaveLength(1);
    const sessions = page.getByRole('button', { name: /^Open session of / });
    await expect.poll(() => sessions.allTextContents()).toStrictEqual([expect.stringMatching(/· 2 messages$/)]);

    // Away (another page) until the run has finished; back, the page shows its result.
    await sendInBackground(page, 'and again');
    await answerShows(page, 'piece1 ');
    await page.goto('about:blank');
    await expect.poll(() => fake.requests[1]?.completed, { timeout: 30_000 }).toBe(true);
    await page.goto(`${origin}/playground/`);
    await expect
      .poll(() => messageTexts(page), { timeout: 30_000 })
      .toStrictEqual(['tell me slowly', ANSWER, 'and again', ANSWER]);
    await expect.poll(() => storedRun(page)).toBeNull();
    await expect.poll(() => messageTexts(page)).toStrictEqual(['tell me slowly', ANSWER, 'and again', ANSWER]);

    // Stop cancels a background run: nothing of it is stored.
    await sendInBackground(page, 'never mind');
    await answerShows(page, 'piece1 ');
    await page.getByRole('button', { name: 'Stop', exact: true }).click();
    await page.getByRole('alert').getByText('The run was cancelled').waitFor();
    await expect.poll(() => fake.requests[2]?.aborted).toBe(true);
    expect(await storedRun(page)).toBeNull();
    await expect.poll(() => sessions.allTextContents()).toStrictEqual([expect.stringMatching(/· 4 messages$/)]);
    expect(problems).toStrictEqual([]);
  });
});

describe.skipIf(present)('background runs in the playground', () => {
  test(`needs ${CHROMIUM} (Debian: apt-get install -y chromium)`, (context) => {
    if (process.env.CI === 'true') throw new Error(`${CHROMIUM} is missing; CI installs it (.ci/run)`);
    context.skip(`skipped: ${CHROMIUM} is absent (apt-get install -y chromium to run it)`);
  });
});
