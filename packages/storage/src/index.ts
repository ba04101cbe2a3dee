export { MemoryStore } from './memory-store.js';
