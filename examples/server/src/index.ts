export { ConfigError, MIN_KEY_LENGTH, loadConfig, type KeyEntry, type ServerConfig } from './config.js';
export { modelsFor } from './models.js';
export { createApp, startServer, type RunningServer } from './server.js';
