export { loadConfig, ConfigError, databaseUrl, usesDevnetBitcoin, usesDevnetLightning } from './load.ts';
export { schema, environment, type FerryConfig } from './schema.ts';
