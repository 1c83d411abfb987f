export { loadConfig, ConfigError, databaseUrl, usesDevnetBitcoin, usesDevnetLightning, usesDevnetLiquid, servesLiquid, usesDevnetEvm, servesEvm } from './load.ts';
export { schema, environment, type FerryConfig } from './schema.ts';
