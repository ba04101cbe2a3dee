/** The storage contract suite: `import { storageContractTests } from '@agenthost/storage/test'`. */
export { storageContractTests, type StorageContractOptions, type TestApi } from './contract/storage-contract.js';
