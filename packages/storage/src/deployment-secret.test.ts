import { afterAll, describe, expect, test } from 'vitest';
import { loadDeploymentSecret } from './deployment-secret.js';
import { MemoryStore } from './memory-store.js';
import { openStore } from './open-store.js';
import { clearRedis, REDIS_URL, runNamespace } from './test-services.js';

describe('loadDeploymentSecret', () => {
  test('makes 32 random bytes (base64url) once and keeps them in the store', async () => {
    const store = new MemoryStore();
    const secret = await loadDeploymentSecret(store);
    expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect([await loadDeploymentSecret(store), await store.getHostSecret()]).toStrictEqual([secret, secret]);
    expect(await loadDeploymentSecret(new MemoryStore())).not.toBe(secret);
  });

  describe('on Redis', () => {
    const namespace = runNamespace('secret');
    afterAll(() => clearRedis(namespace));

    test('servers starting at once get the same secret, and it outlives them', async () => {
      const opened = await Promise.all(Array.from({ length: 4 }, () => openStore(REDIS_URL, { namespace })));
      const secrets = await Promise.all(opened.map((o) => loadDeploymentSecret(o.store)));
      await Promise.all(opened.map((o) => o.close()));
      expect(new Set(secrets).size).toBe(1);
      const reopened = await openStore(REDIS_URL, { namespace });
      try {
        expect(await loadDeploymentSecret(reopened.store)).toBe(secrets[0]);
      } finally {
        await reopened.close();
      }
    });
  });
});
