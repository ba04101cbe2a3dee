export { ConfigError, MIN_KEY_LENGTH, loadConfig, type KeyEntry, type ServerConfig } from './config.js';
export { createApp, modelsFor, startServer, type RunningServer } from './server.js';
