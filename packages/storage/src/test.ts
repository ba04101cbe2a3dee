/** The contract suites: `import { storageContractTests, lockContractTests } from '@agenthost/storage/test'`. */
export { lockContractTests, type LockContractOptions } from './contract/lock-contract.js';
export { storageContractTests, type StorageContractOptions, type TestApi } from './contract/storage-contract.js';
