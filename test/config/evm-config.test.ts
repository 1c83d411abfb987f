// The [evm] section: its keys and their checks, and what they resolve to with and without the devnet (its anvil
// and devnet.json's contracts as defaults; a configured node's contracts required, or taken from a devnet.json
// that lists that very node).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadConfig, servesEvm, usesDevnetEvm } from '../../src/config/index.ts';
import { evmSettings } from '../../src/chains/evm/settings.ts';
import type { DevnetInfo } from '../../src/devnet/index.ts';

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
const devnet = { evm: devnetEvm } as DevnetInfo;
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
  assert.deepEqual(evmSettings(config, devnet), {
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
  assert.deepEqual(evmSettings(config, devnet), {
    rpcUrl: 'https://rsk.example:4444',
    chainId: 30,
    contracts: { EtherSwap: checksummed.EtherSwap, ERC20Swap: checksummed.ERC20Swap },
    tokens: { USDT: checksummed.token },
    pollIntervalMs: 1000,
    confirmations: 3,
  });
  const bare = loadConfig({ env: { FERRY_DATA_DIR: dir(), FERRY_EVM_RPC_URL: 'http://10.0.0.1:4444' } });
  assert.throws(() => evmSettings(bare, devnet), (error: Error) =>
    error instanceof ConfigError && /evm.etherSwap must be set: evm.rpcUrl \(http:\/\/10.0.0.1:4444\) is not the devnet's/.test(error.message));
});

test("a configured node that a devnet.json in the data directory lists: that devnet's contracts", () => {
  const dataDir = dir();
  writeFileSync(join(dataDir, 'devnet.json'), JSON.stringify({ evm: { ...devnetEvm, rpcUrl: 'http://127.0.0.1:28545' } }));
  const config = loadConfig({ env: { FERRY_DATA_DIR: dataDir, FERRY_DEVNET_ENABLED: 'false', FERRY_EVM_RPC_URL: 'http://127.0.0.1:28545' } });
  const settings = evmSettings(config, undefined);
  assert.deepEqual([settings.chainId, settings.contracts.EtherSwap, settings.tokens], [31337, checksummed.EtherSwap, { TRC20: checksummed.token }]);
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
  assert.throws(() => evmSettings(badChecksum, devnet), /evm.etherSwap: .* is not a valid EVM address \(wrong checksum\?\)/);
  const otherChain = loadConfig({ env: { FERRY_EVM_CHAIN_ID: '30' } });
  assert.throws(() => evmSettings(otherChain, devnet), /evm.chainId is 30, but the devnet's anvil runs chain 31337/);
});
