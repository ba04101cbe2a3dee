import { describe, test } from 'vitest';
import { MemoryStore } from './memory-store.js';
import { storageContractTests } from './test.js';

describe('MemoryStore', () => {
  storageContractTests({ describe, test }, () => new MemoryStore());
});
