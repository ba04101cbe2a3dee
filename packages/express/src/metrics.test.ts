import { expect, test } from 'vitest';
import { createMetrics } from './metrics.js';

const gauge = (text: string) => text.split('\n').filter((line) => line.startsWith('agenthost_background_runs'));

test('the background runs gauge reads 0 until a source is given, then what the source says at each scrape', async () => {
  const metrics = createMetrics({ processMetrics: false });
  expect(gauge(await metrics.registry.metrics())).toStrictEqual([
    'agenthost_background_runs{status="queued"} 0',
    'agenthost_background_runs{status="running"} 0',
  ]);
  let counts = { queued: 2, running: 5 };
  metrics.observeBackgroundRuns(() => counts);
  expect(gauge(await metrics.registry.metrics())).toStrictEqual([
    'agenthost_background_runs{status="queued"} 2',
    'agenthost_background_runs{status="running"} 5',
  ]);
  counts = { queued: 0, running: 1 };
  expect(gauge(await metrics.registry.metrics())).toStrictEqual([
    'agenthost_background_runs{status="queued"} 0',
    'agenthost_background_runs{status="running"} 1',
  ]);
});
