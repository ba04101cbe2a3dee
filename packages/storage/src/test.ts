/**
 * The contract suites (`import { storageContractTests, lockContractTests, runStoreContractTests } from '@agenthost/storage/test'`),
 * and the test services: where Redis and PostgreSQL are, and cleanup of what a test wrote there.
 */
export { type LockContractOptions, lockContractTests } from './contract/lock-contract.js';
export { type RunStoreContractOptions, runStoreContractTests } from './contract/run-store-contract.js';
export { type StorageContractOptions, storageContractTests, type TestApi } from './contract/storage-contract.js';
export {
  agentRecord,
  clearPostgres,
  clearRedis,
  DATABASE_URL,
  openedRuns,
  REDIS_URL,
  runNamespace,
  type TcpProxy,
  tcpProxy,
} from './test-services.js';
