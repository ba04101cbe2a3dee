import { describe, expect, it } from 'vitest';
import { lazyPackage } from './lazy-package.js';

const here = { url: import.meta.url, resolve: import.meta.resolve };

describe('lazyPackage', () => {
  it('loads the package on the first call only, as the module instance `import` gets', async () => {
    const prices = lazyPackage<typeof import('@pydantic/genai-prices')>('@pydantic/genai-prices', here);
    const first = prices();
    expect(prices()).toBe(first);
    expect(first.calcPrice).toBe((await import('@pydantic/genai-prices')).calcPrice);
  });

  it('without `resolve` (a CommonJS build), requires the package', () => {
    const prices = lazyPackage<typeof import('@pydantic/genai-prices')>('@pydantic/genai-prices', {
      url: import.meta.url,
    });
    expect(typeof prices().calcPrice).toBe('function');
  });

  it('throws when the package is first needed and cannot be found, and again on the next call', () => {
    const missing = lazyPackage('agenthost-no-such-package', here);
    expect(missing).toThrow(/agenthost-no-such-package/);
    expect(missing).toThrow(/agenthost-no-such-package/);
  });
});
