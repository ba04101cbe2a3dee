export { generateDeploymentSecret, loadDeploymentSecret } from './deployment-secret.js';
export { KeyvStore, type KeyvStoreOptions } from './keyv-store.js';
export { postgresLocks, type PostgresLocksOptions } from './locks/postgres-locks.js';
export { redisLocks, type RedisLockClient, type RedisLocksOptions } from './locks/redis-locks.js';
export { MemoryStore } from './memory-store.js';
export { STORE_URL_FORMS, openStore, type OpenStoreOptions, type OpenedStore } from './open-store.js';
