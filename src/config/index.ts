export { loadConfig, ConfigError, databaseUrl, usesDevnetBitcoin } from './load.ts';
export { schema, environment, type FerryConfig } from './schema.ts';
