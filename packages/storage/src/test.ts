/** The contract suites: `import { storageContractTests, lockContractTests } from '@agenthost/storage/test'`. */
export { type LockContractOptions, lockContractTests } from './contract/lock-contract.js';
export { type StorageContractOptions, storageContractTests, type TestApi } from './contract/storage-contract.js';
