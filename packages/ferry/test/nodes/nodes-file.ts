// The nodes file of `npm run test:nodes`: the real regtest daemons the suite runs Ferry against, and what it needs to
// play Ferry's user. Ferry's own nodes are a fragment of Ferry's configuration (`[ferry]`, any key Ferry's config
// takes, checked by Ferry's own loader when the suite writes the config file), so an operator copies them from, or
// into, their ferry.toml unchanged; the user's wallets, EVM key and the counterparty Lightning node are the suite's.
// TOML or JSON, from `--nodes FILE`, FERRY_NODES_FILE, or the text itself in FERRY_NODES.
import { readFileSync } from 'node:fs';
import { parse } from 'smol-toml';

/** A Core-family node's wallet the suite pays from and into; the node is Ferry's unless rpcUrl says otherwise. */
export interface UserChain {
  rpcUrl: string;
  rpcUser: string;
  rpcPassword: string;
  wallet: string;
}

export type CounterpartyConfig =
  | { kind: 'lnd'; restUrl: string; macaroon?: string; macaroonPath?: string; tlsCertPath?: string }
  | { kind: 'cln'; restUrl: string; rune: string; tlsCertPath?: string };

export interface NodesConfig {
  /** Where it was read from, for messages. */
  source: string;
  /** A fragment of Ferry's configuration: its nodes and anything else the operator wants Ferry to run with. */
  ferry: Record<string, unknown>;
  user: { bitcoin: UserChain; liquid?: UserChain; evm?: { privateKey: string } };
  counterparty: CounterpartyConfig;
}

export class NodesFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'NodesFileError';
  }
}

/** The example `npm run test:nodes` prints without a configuration (docs/node-suite.md shows the same text). */
export const NODES_EXAMPLE = `# Ferry's own nodes: any keys of Ferry's configuration (docs/operating.md), written as they are into the
# config file the suite starts \`ferry start\` with. bitcoin and lightning are required; Liquid (L-BTC) and the EVM
# chain (RBTC) are tested when configured. Every chain must be regtest: the suite mines blocks.
[ferry.bitcoin]
rpcUrl = "http://127.0.0.1:18443"
rpcUser = "ferry"
rpcPassword = "secret"
wallet = "ferry"                  # the operator's wallet: funds Ferry's lockups

[ferry.liquid]
rpcUrl = "http://127.0.0.1:18884"
rpcUser = "ferry"
rpcPassword = "secret"
wallet = "ferry"

[ferry.lightning]
backend = "lnd"
restUrl = "https://127.0.0.1:8080"
macaroonPath = "/home/ferry/.lnd/data/chain/bitcoin/regtest/admin.macaroon"
tlsCertPath = "/home/ferry/.lnd/tls.cert"
# Core Lightning instead: backend = "cln", restUrl = clnrest's URL, rune = "...", tlsCertPath = clnrest's ca.pem,
# and [ferry.lightning.cln.hold] grpcUrl = "127.0.0.1:9292", certDir = "<lightning-dir>/regtest/hold/grpc"

[ferry.evm]
rpcUrl = "http://127.0.0.1:8545"
chainId = 31337
etherSwap = "0x5FbDB2315678afecb367f032d93F642f64180aa3"
erc20Swap = "0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512"
# Ferry's operator account is m/44'/60'/0'/0/0 of its mnemonic ([ferry.swap] mnemonicPath; default: a new one);
# the suite tops it up to 1 RBTC from the user's account when it holds less.

# The user the suite plays: a funded wallet on each chain (on Ferry's node unless rpcUrl, rpcUser and rpcPassword
# name another), where the suite also mines (generatetoaddress), and an EVM account's key.
[user.bitcoin]
wallet = "user"

[user.liquid]
wallet = "user"

[user.evm]
privateKey = "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d"

# A Lightning node with channels to Ferry's node, with liquidity both ways: it pays Ferry's invoices (reverse swaps)
# and issues the invoices Ferry pays (submarine swaps).
[counterparty]
kind = "lnd"                      # or "cln": restUrl, rune, tlsCertPath
restUrl = "https://127.0.0.1:8081"
macaroonPath = "/home/user/.lnd/data/chain/bitcoin/regtest/admin.macaroon"
tlsCertPath = "/home/user/.lnd/tls.cert"
`;

type Table = Record<string, unknown>;

const isTable = (value: unknown): value is Table => typeof value === 'object' && value !== null && !Array.isArray(value);

function table(parent: Table, key: string, path: string): Table | undefined {
  const value = parent[key];
  if (value === undefined) return undefined;
  if (!isTable(value)) throw new NodesFileError(`${path}${key} must be a table`);
  return value;
}

function text(parent: Table, key: string, path: string, required: boolean): string | undefined {
  const value = parent[key];
  if (value === undefined || value === '') {
    if (required) throw new NodesFileError(`${path}${key} is required`);
    return undefined;
  }
  if (typeof value !== 'string') throw new NodesFileError(`${path}${key} must be a string`);
  return value;
}

function only(parent: Table, keys: string[], path: string): void {
  for (const key of Object.keys(parent)) if (!keys.includes(key)) throw new NodesFileError(`unknown key ${path}${key}`);
}

/** The user's wallet on a chain Ferry runs on `ferryChain`: the same node unless told otherwise. */
function userChain(user: Table, name: 'bitcoin' | 'liquid', ferryChain: Table): UserChain {
  const path = `user.${name}.`;
  const chain = table(user, name, 'user.');
  if (chain === undefined) throw new NodesFileError(`[user.${name}] is required: ferry.${name}.rpcUrl is configured`);
  only(chain, ['rpcUrl', 'rpcUser', 'rpcPassword', 'wallet'], path);
  const own = text(chain, 'rpcUrl', path, false);
  return {
    rpcUrl: own ?? (ferryChain.rpcUrl as string),
    rpcUser: (own ? text(chain, 'rpcUser', path, false) : (ferryChain.rpcUser as string | undefined)) ?? '',
    rpcPassword: (own ? text(chain, 'rpcPassword', path, false) : (ferryChain.rpcPassword as string | undefined)) ?? '',
    wallet: text(chain, 'wallet', path, true)!,
  };
}

function counterparty(root: Table): CounterpartyConfig {
  const node = table(root, 'counterparty', '');
  if (node === undefined) throw new NodesFileError('[counterparty] is required: a Lightning node with channels to Ferry\'s');
  const kind = text(node, 'kind', 'counterparty.', false) ?? 'lnd';
  const restUrl = text(node, 'restUrl', 'counterparty.', true)!;
  const tlsCertPath = text(node, 'tlsCertPath', 'counterparty.', false);
  if (kind === 'lnd') {
    only(node, ['kind', 'restUrl', 'macaroon', 'macaroonPath', 'tlsCertPath'], 'counterparty.');
    const macaroon = text(node, 'macaroon', 'counterparty.', false);
    const macaroonPath = text(node, 'macaroonPath', 'counterparty.', false);
    if (macaroon === undefined && macaroonPath === undefined) throw new NodesFileError('counterparty.macaroonPath (or macaroon, hex) is required for an LND counterparty');
    return { kind, restUrl, macaroon, macaroonPath, tlsCertPath };
  }
  if (kind === 'cln') {
    only(node, ['kind', 'restUrl', 'rune', 'tlsCertPath'], 'counterparty.');
    return { kind, restUrl, rune: text(node, 'rune', 'counterparty.', true)!, tlsCertPath };
  }
  throw new NodesFileError(`counterparty.kind must be "lnd" or "cln", got ${JSON.stringify(kind)}`);
}

/** Reads a nodes file's text (TOML, or JSON when it starts with `{`); `source` names it in messages. */
export function parseNodes(content: string, source: string): NodesConfig {
  let root: unknown;
  try {
    root = content.trimStart().startsWith('{') ? JSON.parse(content) : parse(content);
  } catch (error) {
    throw new NodesFileError(`${source} is neither valid TOML nor JSON: ${(error as Error).message}`);
  }
  if (!isTable(root)) throw new NodesFileError(`${source} must hold a table`);
  try {
    only(root, ['ferry', 'user', 'counterparty'], '');
    const ferry = table(root, 'ferry', '');
    if (ferry === undefined) throw new NodesFileError("[ferry] is required: Ferry's nodes, as Ferry's configuration takes them");
    const bitcoin = table(ferry, 'bitcoin', 'ferry.');
    if (bitcoin === undefined || !bitcoin.rpcUrl) throw new NodesFileError('ferry.bitcoin.rpcUrl is required: the suite runs against real nodes only');
    if (!table(ferry, 'lightning', 'ferry.')?.restUrl) throw new NodesFileError("ferry.lightning.restUrl is required: Ferry's Lightning node");
    const liquid = table(ferry, 'liquid', 'ferry.');
    const evm = table(ferry, 'evm', 'ferry.');
    const user = table(root, 'user', '');
    if (user === undefined) throw new NodesFileError('[user] is required: the wallets the suite pays from and into');
    only(user, ['bitcoin', 'liquid', 'evm'], 'user.');
    const evmUser = table(user, 'evm', 'user.');
    if (evm?.rpcUrl && evmUser === undefined) throw new NodesFileError('[user.evm] privateKey is required: ferry.evm.rpcUrl is configured');
    if (evmUser) only(evmUser, ['privateKey'], 'user.evm.');
    return {
      source,
      ferry,
      user: {
        bitcoin: userChain(user, 'bitcoin', bitcoin),
        ...(liquid?.rpcUrl ? { liquid: userChain(user, 'liquid', liquid) } : {}),
        ...(evm?.rpcUrl && evmUser ? { evm: { privateKey: text(evmUser, 'privateKey', 'user.evm.', true)! } } : {}),
      },
      counterparty: counterparty(root),
    };
  } catch (error) {
    if (error instanceof NodesFileError) throw new NodesFileError(`${source}: ${error.message}`);
    throw error;
  }
}

export function readNodesFile(path: string): NodesConfig {
  let content: string;
  try {
    content = readFileSync(path, 'utf8');
  } catch (error) {
    throw new NodesFileError(`cannot read the nodes file ${path}: ${(error as Error).message}`);
  }
  return parseNodes(content, path);
}

/** The nodes the environment names (FERRY_NODES_FILE, or the text in FERRY_NODES); undefined: none. */
export function nodesFromEnvironment(env: NodeJS.ProcessEnv = process.env): NodesConfig | undefined {
  if (env.FERRY_NODES_FILE) return readNodesFile(env.FERRY_NODES_FILE);
  if (env.FERRY_NODES) return parseNodes(env.FERRY_NODES, 'FERRY_NODES');
  return undefined;
}
