/**
 * Asks `url` for an answer again and again while `work` runs, and resolves with the work's result and
 * the slowest answer, in ms: how responsive a server stayed while it did something costly.
 */
export async function pollWhile<T>(
  url: string,
  work: Promise<T>,
  options: { intervalMs?: number } = {},
): Promise<{ result: T; slowestMs: number }> {
  let done = false;
  let slowestMs = 0;
  const poll = (async () => {
    while (!done) {
      const started = performance.now();
      await fetch(url).then((r) => r.arrayBuffer());
      slowestMs = Math.max(slowestMs, performance.now() - started);
      await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 2));
    }
  })();
  const result = await work.finally(() => (done = true));
  await poll;
  return { result, slowestMs };
}
