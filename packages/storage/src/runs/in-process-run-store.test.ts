import { InProcessRunStore } from '@agenthost/core';
import { describe, test } from 'vitest';
import { runStoreContractTests } from '../test.js';

describe('InProcessRunStore', () => {
  runStoreContractTests({ describe, test }, () => new InProcessRunStore());
});
