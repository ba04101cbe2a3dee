export { generateDeploymentSecret, loadDeploymentSecret } from './deployment-secret.js';
export { KeyvStore, type KeyvStoreOptions } from './keyv-store.js';
export { type PostgresLocksOptions, postgresLocks } from './locks/postgres-locks.js';
export { type RedisLockClient, type RedisLocksOptions, redisLocks } from './locks/redis-locks.js';
export { MemoryStore } from './memory-store.js';
export { loadNodeSqlite, NodeSqliteAdapter } from './node-sqlite-adapter.js';
export { type OpenedStore, type OpenStoreOptions, openStore, STORE_URL_FORMS } from './open-store.js';
