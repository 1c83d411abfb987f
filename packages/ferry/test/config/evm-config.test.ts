// The [evm] section: its keys and their checks, and what they resolve to with and without the devnet (zero-config:
// its anvil and contracts fill the unset keys, src/config/devnet.ts; a configured node's contracts are required).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadConfig, servesEvm, usesDevnetEvm } from '../../src/config/index.ts';
import { evmSettings } from '../../src/chains/evm/settings.ts';
import { withDevnet } from '../../src/config/devnet.ts';
import type { DevnetInfo } from '@ferry/devnet/index.js';

const dir = () => mkdtempSync(join(tmpdir(), 'ferry-evm-config-'));
const file = (text: string): string => {
  const path = join(dir(), 'ferry.toml');
  writeFileSync(path, text);
  return path;
};

// What the devnet writes into devnet.json's evm entry (anvil's first deployment addresses).
const devnetEvm = {
  rpcUrl: 'http://127.0.0.1:8545',
  chainId: 31337,
  contracts: {
    etherSwap: '0x5fbdb2315678afecb367f032d93f642f64180aa3',
    erc20Swap: '0xe7f1725e7734ce288f8367e1bb143e90bb3f0512',
    token: '0x9fe46736679d2d9a65f0992f2272de9f3c7fa6e0',
  },
} as DevnetInfo['evm'];
// The rest of a devnet.json: zero-config leaves every backend to the devnet.
const node = { rpcUrl: 'http://127.0.0.1:18443', rpcUser: 'devnet', rpcPassword: 'pw', wallets: { operator: 'operator', user: 'user' } };
const devnet = {
  bitcoin: node,
  elements: { ...node, rpcUrl: 'http://127.0.0.1:18884' },
  lightning: { ferry: { restUrl: 'http://127.0.0.1:8080', macaroon: 'ab', pubkey: '02'.padEnd(66, '1') } },
  evm: devnetEvm,
} as DevnetInfo;
const checksummed = {
  EtherSwap: '0x5FbDB2315678afecb367f032d93F642f64180aa3',
  ERC20Swap: '0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512',
  token: '0x9fE46736679d2D9a65F0992F2272dE9f3c7fa6e0',
};

test('zero-config: the devnet serves the EVM chain, its anvil and contracts, polled every second from the tip', () => {
  const config = loadConfig({ env: {} });
  assert.deepEqual(config.evm, { rpcUrl: '', chainId: 0, etherSwap: '', erc20Swap: '', tokens: {}, pollIntervalMs: 1000, confirmations: 1 });
  assert.equal(servesEvm(config), true);
  assert.equal(usesDevnetEvm(config), true);
  assert.throws(() => evmSettings(config), /evm.rpcUrl must be set/, 'the EVM chain reads configuration only');
  assert.deepEqual(evmSettings(withDevnet(config, devnet)), {
    rpcUrl: 'http://127.0.0.1:8545',
    chainId: 31337,
    contracts: { EtherSwap: checksummed.EtherSwap, ERC20Swap: checksummed.ERC20Swap },
    tokens: { TRC20: checksummed.token },
    pollIntervalMs: 1000,
    confirmations: 1,
  });
  assert.equal(servesEvm(loadConfig({ env: { FERRY_DEVNET_ENABLED: 'false' } })), false, 'no devnet, no node: no EVM chain');
});

test('a configured node: its keys from the file and the environment, its contracts required', () => {
  const path = file(`[evm]
rpcUrl = "https://rsk.example:4444"
chainId = 31
etherSwap = "${checksummed.EtherSwap}"
erc20Swap = "${checksummed.ERC20Swap}"
confirmations = 3

[evm.tokens]
USDT = "${checksummed.token}"
`);
  const config = loadConfig({ file: path, env: { FERRY_EVM_CHAIN_ID: '30' } });
  assert.equal(usesDevnetEvm(config), false);
  assert.deepEqual(withDevnet(config, devnet).evm, config.evm, "a configured node is the operator's, whole");
  assert.deepEqual(evmSettings(config), {
    rpcUrl: 'https://rsk.example:4444',
    chainId: 30,
    contracts: { EtherSwap: checksummed.EtherSwap, ERC20Swap: checksummed.ERC20Swap },
    tokens: { USDT: checksummed.token },
    pollIntervalMs: 1000,
    confirmations: 3,
  });
  const bare = loadConfig({ env: { FERRY_DATA_DIR: dir(), FERRY_EVM_RPC_URL: 'http://10.0.0.1:4444' } });
  assert.throws(() => evmSettings(withDevnet(bare, devnet)), (error: Error) =>
    error instanceof ConfigError && /evm.etherSwap must be set: the contract Ferry serves on http:\/\/10.0.0.1:4444/.test(error.message));
});

test("on the devnet's anvil, the operator's contract and token addresses win; the chain id must be anvil's", () => {
  const path = file(`[evm]
etherSwap = "${checksummed.ERC20Swap}"

[evm.tokens]
USDT = "${checksummed.token}"
`);
  const settings = evmSettings(withDevnet(loadConfig({ file: path, env: {} }), devnet));
  assert.deepEqual([settings.rpcUrl, settings.chainId], ['http://127.0.0.1:8545', 31337]);
  assert.deepEqual(settings.contracts, { EtherSwap: checksummed.ERC20Swap, ERC20Swap: checksummed.ERC20Swap });
  assert.deepEqual(settings.tokens, { USDT: checksummed.token });
  assert.equal(withDevnet(loadConfig({ env: { FERRY_EVM_CHAIN_ID: '31337' } }), devnet).evm.chainId, 31337);
  assert.throws(() => withDevnet(loadConfig({ env: { FERRY_EVM_CHAIN_ID: '30' } }), devnet), /evm.chainId is 30, but the devnet's anvil runs chain 31337/);
});

test('wrong values stop start-up naming the key', () => {
  const refused = (text: string, env: Record<string, string>, message: RegExp) =>
    assert.throws(() => loadConfig({ file: file(text), env }), (error: Error) => error instanceof ConfigError && message.test(error.message), message.source);
  refused('[evm]\netherSwap = "0x1234"\n', {}, /evm.etherSwap must be an EVM address \(0x and 40 hex digits\), got "0x1234"/);
  refused('[evm]\nchainId = -1\n', {}, /evm.chainId must be a non-negative integer/);
  refused('[evm]\nconfirmations = 0\n', {}, /evm.confirmations must be at least 1/);
  refused('[evm]\nrpcUrl = "localhost:8545"\n', {}, /evm.rpcUrl must be an http\(s\) URL/);
  refused('[evm]\ntokens = "USDT"\n', {}, /evm.tokens must be a table of SYMBOL = "0x..." entries/);
  refused('[evm.tokens]\nUSDT = "nope"\n', {}, /evm.tokens.USDT must be an EVM address/);
  refused('[evm]\nrpc = "x"\n', {}, /unknown config key: evm.rpc/);
  refused('', { FERRY_EVM_CHAIN_ID: 'thirty' }, /evm.chainId must be a non-negative integer, got "thirty"/);
  // The shape is checked on load, the checksum where the address is used.
  const badChecksum = loadConfig({ file: file(`[evm]\netherSwap = "${checksummed.EtherSwap.replace('F', 'f').replace('b', 'B')}"\n`), env: {} });
  assert.throws(() => evmSettings(withDevnet(badChecksum, devnet)), /evm.etherSwap: .* is not a valid EVM address \(wrong checksum\?\)/);
});
