import { describe, test } from 'vitest';
import { storageContractTests } from './test.js';
import { MemoryStore } from './memory-store.js';

describe('MemoryStore', () => {
  storageContractTests({ describe, test }, () => new MemoryStore());
});
