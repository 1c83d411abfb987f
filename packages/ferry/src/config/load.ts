// Loads the configuration: defaults, then the optional TOML file, then environment overrides.
// Anything unknown or of the wrong type stops start-up with a message naming the key.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parse } from 'smol-toml';
import { formatConfirmations, parseConfirmations } from '../swaps/confirmations.ts';
import { environment, knownPairDefaults, pairEntry, schema, type Field, type FerryConfig, type Section } from './schema.ts';

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

const isField = (node: Field | Section): node is Field => typeof (node as Field).type === 'string';

const levels = ['debug', 'info', 'warn', 'error'];
// Checksums are verified where the address is used (ethers); here only the shape, so a typo stops start-up early.
const evmAddress = /^0x[0-9a-fA-F]{40}$/;
const tokenSymbol = /^[A-Za-z0-9.-]{1,20}$/;
const networks = ['regtest', 'testnet', 'signet', 'mainnet'];
const lightningBackends = ['lnd', 'cln'];

function check(key: string, field: Field, value: unknown): string | number | boolean | Record<string, string> {
  switch (field.type) {
    case 'string':
      if (typeof value !== 'string') throw new ConfigError(`config key ${key} must be a string`);
      return value;
    case 'boolean':
      if (typeof value !== 'boolean') throw new ConfigError(`config key ${key} must be a boolean`);
      return value;
    case 'number': {
      const n = typeof value === 'bigint' ? Number(value) : value;
      if (typeof n !== 'number' || !Number.isFinite(n) || n < 0) throw new ConfigError(`config key ${key} must be a non-negative number`);
      return n;
    }
    case 'integer':
    case 'port': {
      const n = typeof value === 'bigint' ? Number(value) : value;
      if (typeof n !== 'number' || !Number.isInteger(n) || n < 0) {
        throw new ConfigError(`config key ${key} must be a non-negative integer`);
      }
      if (field.type === 'port' && n > 65535) throw new ConfigError(`config key ${key} must be a port (0-65535)`);
      return n;
    }
    case 'level':
      if (typeof value !== 'string' || !levels.includes(value)) {
        throw new ConfigError(`config key ${key} must be one of ${levels.join(', ')}`);
      }
      return value;
    case 'network':
      if (typeof value !== 'string' || !networks.includes(value)) {
        throw new ConfigError(`config key ${key} must be one of ${networks.join(', ')}`);
      }
      return value;
    case 'lightningBackend':
      if (typeof value !== 'string' || !lightningBackends.includes(value)) {
        throw new ConfigError(`config key ${key} must be one of ${lightningBackends.join(', ')}`);
      }
      return value;
    case 'address':
      if (typeof value !== 'string' || (value !== '' && !evmAddress.test(value))) {
        throw new ConfigError(`config key ${key} must be an EVM address (0x and 40 hex digits), got ${JSON.stringify(value)}`);
      }
      return value;
    case 'confirmations': {
      const setting = typeof value === 'bigint' ? Number(value) : value;
      if (setting === '') return '';
      if (typeof setting !== 'string' && typeof setting !== 'number') {
        throw new ConfigError(`config key ${key} must be a number of blocks or a string of tiers like "1000000:2,*:6"`);
      }
      try {
        return formatConfirmations(parseConfirmations(setting));
      } catch (error) {
        throw new ConfigError(`config key ${key}: ${(error as Error).message}`);
      }
    }
    case 'addresses': {
      if (typeof value !== 'object' || value === null || Array.isArray(value)) {
        throw new ConfigError(`config key ${key} must be a table of SYMBOL = "0x..." entries`);
      }
      const out: Record<string, string> = {};
      for (const [symbol, address] of Object.entries(value)) {
        if (!tokenSymbol.test(symbol)) throw new ConfigError(`config key ${key}.${symbol}: not a token symbol`);
        out[symbol] = check(`${key}.${symbol}`, { type: 'address', doc: '' }, address) as string;
        if (out[symbol] === '') throw new ConfigError(`config key ${key}.${symbol} must be an EVM address, not empty`);
      }
      return out;
    }
  }
}

function defaults(section: Section): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, node] of Object.entries(section)) {
    // Table defaults are copied: a loaded configuration must not share (and change) the schema's object.
    out[name] = !isField(node) ? defaults(node) : typeof node.default === 'object' ? { ...node.default } : node.default;
  }
  return out;
}

/** [[pairs]]: a list of tables, each a pair id and its settings over the defaults. */
function pairList(value: unknown): Record<string, unknown>[] {
  if (!Array.isArray(value)) throw new ConfigError('config key pairs must be a list of tables ([[pairs]])');
  const seen = new Set<string>();
  return value.map((entry, index) => {
    const key = `pairs[${index}]`;
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) throw new ConfigError(`config key ${key} must be a table`);
    const id = (entry as Record<string, unknown>).id;
    const pair = { ...defaults(pairEntry), ...(typeof id === 'string' && knownPairDefaults[id]) };
    merge(pairEntry, pair, entry as Record<string, unknown>, `${key}.`);
    if (!/^[A-Za-z0-9-]+\/[A-Za-z0-9-]+$/.test(pair.id as string)) throw new ConfigError(`config key ${key}.id must be a pair id like "BTC/BTC"`);
    if (seen.has(pair.id as string)) throw new ConfigError(`config key ${key}.id: pair ${pair.id} is listed twice`);
    seen.add(pair.id as string);
    return pair;
  });
}

function merge(section: Section, target: Record<string, unknown>, input: Record<string, unknown>, prefix: string): void {
  for (const [name, value] of Object.entries(input)) {
    const key = prefix + name;
    if (section === schema && name === 'pairs') {
      target.pairs = pairList(value);
      continue;
    }
    const node = section[name];
    if (node === undefined) throw new ConfigError(`unknown config key: ${key}`);
    if (isField(node)) {
      target[name] = check(key, node, value);
    } else {
      if (typeof value !== 'object' || value === null || Array.isArray(value)) {
        throw new ConfigError(`config key ${key} must be a table`);
      }
      merge(node, target[name] as Record<string, unknown>, value as Record<string, unknown>, key + '.');
    }
  }
}

function fieldAt(path: string): Field {
  let node: Field | Section = schema;
  for (const part of path.split('.')) node = (node as Section)[part];
  return node as Field;
}

function fromEnvironment(key: string, field: Field, raw: string): unknown {
  if (field.type === 'integer' || field.type === 'port') {
    if (!/^\d+$/.test(raw)) throw new ConfigError(`config key ${key} must be a non-negative integer, got "${raw}"`);
    return Number(raw);
  }
  if (field.type === 'number') {
    if (!/^\d+(\.\d+)?$/.test(raw)) throw new ConfigError(`config key ${key} must be a non-negative number, got "${raw}"`);
    return Number(raw);
  }
  if (field.type === 'boolean') {
    if (raw !== 'true' && raw !== 'false') throw new ConfigError(`config key ${key} must be true or false, got "${raw}"`);
    return raw === 'true';
  }
  return raw;
}

export interface LoadOptions {
  file?: string;
  env?: NodeJS.ProcessEnv;
}

export function loadConfig(options: LoadOptions = {}): FerryConfig {
  const env = options.env ?? process.env;
  const config: Record<string, unknown> = { ...defaults(schema), pairs: [] };
  const file = options.file ?? env.FERRY_CONFIG;
  if (file) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (error) {
      throw new ConfigError(`cannot read config file ${file}: ${(error as Error).message}`);
    }
    let parsed: Record<string, unknown>;
    try {
      parsed = parse(text) as Record<string, unknown>;
    } catch (error) {
      throw new ConfigError(`config file ${file} is not valid TOML: ${(error as Error).message}`);
    }
    merge(schema, config, parsed, '');
  }
  for (const [variable, key] of Object.entries(environment)) {
    const raw = env[variable];
    if (raw === undefined || raw === '') continue;
    const field = fieldAt(key);
    const path = key.split('.');
    const name = path.pop()!;
    const target = path.reduce((table, section) => table[section] as Record<string, unknown>, config);
    target[name] = check(`${key} (from ${variable})`, field, fromEnvironment(key, field, raw));
  }
  const result = config as unknown as FerryConfig;
  result.dataDir = resolve(result.dataDir);
  checkEvm(result.evm);
  checkEffects(result.effects);
  checkHold(result.lightning.cln.hold);
  return result;
}

/** [lightning.cln.hold]: an address of host and port, and the three mTLS files the plugin's clients need. */
function checkHold(hold: FerryConfig['lightning']['cln']['hold']): void {
  const files = { caCert: hold.caCert, clientCert: hold.clientCert, clientKey: hold.clientKey };
  if (hold.grpcUrl === '') {
    if (hold.certDir !== '' || Object.values(files).some((path) => path !== '')) {
      throw new ConfigError('config key lightning.cln.hold.grpcUrl is needed with the hold plugin\'s certificates');
    }
    return;
  }
  if (!/^[^\s:/]+:\d{1,5}$/.test(hold.grpcUrl) && !/^\[[0-9a-fA-F:]+\]:\d{1,5}$/.test(hold.grpcUrl)) {
    throw new ConfigError(`config key lightning.cln.hold.grpcUrl must be host:port, got ${JSON.stringify(hold.grpcUrl)}`);
  }
  const missing = Object.entries(files).filter(([, path]) => path === '').map(([key]) => `lightning.cln.hold.${key}`);
  if (hold.certDir === '' && missing.length > 0) {
    throw new ConfigError(`config key lightning.cln.hold.certDir (or ${missing.join(', ')}) is needed: the plugin's gRPC takes mTLS clients only`);
  }
}

/** Retries that can happen at all, at a pace that grows. */
function checkEffects(effects: FerryConfig['effects']): void {
  if (effects.maxAttempts < 1) throw new ConfigError('config key effects.maxAttempts must be at least 1');
  if (effects.retryMs < 1) throw new ConfigError('config key effects.retryMs must be at least 1');
  if (effects.retryMaxMs < effects.retryMs) throw new ConfigError('config key effects.retryMaxMs must be at least effects.retryMs');
}

/** What no single key's type says about [evm]: a usable URL and at least one confirmation. */
function checkEvm(evm: FerryConfig['evm']): void {
  if (evm.rpcUrl !== '') {
    let protocol: string;
    try {
      protocol = new URL(evm.rpcUrl).protocol;
    } catch {
      throw new ConfigError(`config key evm.rpcUrl must be a URL, got ${JSON.stringify(evm.rpcUrl)}`);
    }
    if (protocol !== 'http:' && protocol !== 'https:') throw new ConfigError(`config key evm.rpcUrl must be an http(s) URL, got ${JSON.stringify(evm.rpcUrl)}`);
  }
  if (evm.confirmations < 1) throw new ConfigError('config key evm.confirmations must be at least 1 (1: events are delivered from the tip)');
  if (evm.pollIntervalMs < 1) throw new ConfigError('config key evm.pollIntervalMs must be at least 1');
}

/** The database URL in effect: the configured one, or SQLite inside the data directory. */
export const databaseUrl = (config: FerryConfig): string =>
  config.database.url || `sqlite:${resolve(config.dataDir, 'ferry.sqlite')}`;

/** A bitcoin backend is external when its RPC URL is configured; otherwise the devnet serves it. */
export const usesDevnetBitcoin = (config: FerryConfig): boolean => config.bitcoin.rpcUrl === '' && config.devnet.enabled;

/** Likewise for Liquid: the devnet's Elements node serves when no elementsd is configured. */
export const usesDevnetLiquid = (config: FerryConfig): boolean => config.liquid.rpcUrl === '' && config.devnet.enabled;

/** Whether Ferry serves Liquid at all: an Elements node configured, or the devnet's. */
export const servesLiquid = (config: FerryConfig): boolean => config.liquid.rpcUrl !== '' || config.devnet.enabled;

/** Likewise for the EVM chain: the devnet's anvil serves when no EVM node is configured. */
export const usesDevnetEvm = (config: FerryConfig): boolean => config.evm.rpcUrl === '' && config.devnet.enabled;

/** Whether Ferry serves the EVM chain (RBTC) at all: a node configured, or the devnet's anvil. */
export const servesEvm = (config: FerryConfig): boolean => config.evm.rpcUrl !== '' || config.devnet.enabled;

/** Likewise for Lightning: the devnet's `ferry` node (or `cln`, on the CLN backend) serves when no node is configured. */
export const usesDevnetLightning = (config: FerryConfig): boolean =>
  config.lightning.restUrl === '' && !(config.lightning.backend === 'cln' && config.lightning.cln.rpcSocket !== '') && config.devnet.enabled;
