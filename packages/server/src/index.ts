export { ConfigError, type KeyEntry, loadConfig, MIN_KEY_LENGTH, type ServerConfig } from './config.js';
export { agentHostHome, DEFAULT_STORE_FILE, defaultStore } from './home.js';
export { type AgentHost, type AgentHostExtras, createAgentHost } from './host.js';
export { createLogger, requestLogger } from './logging.js';
export { modelsFor } from './models.js';
export { type AgentHostOptions, OPTION_VARIABLES, optionsFromEnv } from './options.js';
export { mountReferencePage, REFERENCE_PAGE_PATH } from './reference-page.js';
export { claimStore } from './store-claim.js';
export { KNOWN_VARIABLES, unknownVariableWarnings } from './unknown-variables.js';
