export { ConfigError, type KeyEntry, loadConfig, MIN_KEY_LENGTH, type ServerConfig } from './config.js';
export { modelsFor } from './models.js';
export { createApp, type RunningServer, startServer } from './server.js';
