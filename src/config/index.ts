export { loadConfig, ConfigError, databaseUrl, usesDevnetBitcoin, usesDevnetLightning, usesDevnetLiquid, servesLiquid } from './load.ts';
export { schema, environment, type FerryConfig } from './schema.ts';
