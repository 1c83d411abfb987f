// A real world for engine tests: the devnet (Bitcoin node + Lightning network) in a temp dir, SQLite storage,
// the chain watcher and a SwapEngine on the operator's node and wallet; wallets act through boltz-core.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateMnemonic } from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english.js';
import { CoreRpcClient, btcToSat } from '@ferry/sdk/chains/core-rpc.js';
import { ChainWatcher } from '../../src/chains/watcher/watcher.ts';
import { silentLogger as silentWatcherLogger } from '../../src/chains/logger.ts';
import { openStorage, type Storage } from '../../src/db/index.ts';
import { startDevnet, type Devnet } from '@ferry/devnet/index.js';
import { BitcoinBackend } from '../../src/chains/bitcoin/backend.ts';
import { SwapEngine, type SwapEngineOptions, type SwapStatusBody } from '../../src/engine/index.ts';
import type { LightningBackend } from '../../src/lightning/backend.ts';
import { SwapKeys } from '@ferry/sdk/keys/index.js';
import { LndRestClient } from '../../src/lightning/index.ts';
import { silentLogger } from '../../src/log/index.ts';
import { bitcoinCodec } from '../../src/chains/bitcoin/codec.ts';
import { ephemeralDevnetPorts } from '../helpers/ports.ts';
import { ferryNodeClient, onCln } from '../helpers/test-lightning.ts';
import { Wallet } from 'ethers';
import { loadConfig } from '../../src/config/index.ts';
import type { EvmBackend } from '../../src/chains/evm/backend.ts';
import { connectEvm } from '../../src/chains/evm/connect.ts';
import { EvmContractChain } from '../../src/chains/evm/contract-chain.ts';
import { evmSettings } from '../../src/chains/evm/settings.ts';
import { withDevnet } from '../../src/config/devnet.ts';
import { fundAccounts } from '@ferry/devnet/evm/fund.js';

export interface World {
  dataDir: string;
  devnet: Devnet;
  storage: Storage;
  /** Node-level RPC (no wallet). */
  node: CoreRpcClient;
  /** The operator's wallet: Ferry's funds. */
  operator: CoreRpcClient;
  /** The wallet user's coins. */
  user: CoreRpcClient;
  watcher: ChainWatcher;
  /** Ferry's node: the devnet's `ferry` (LND), or `cln` with FERRY_TEST_LIGHTNING=cln. */
  ferryNode: LightningBackend;
  alice: LndRestClient;
  keys: SwapKeys;
  engine: SwapEngine;
  /** Every status published, per swap, in order. */
  published: Map<string, string[]>;
  mine(blocks?: number): Promise<void>;
  height(): Promise<number>;
  waitForStatus(id: string, status: string, timeoutMs?: number): Promise<SwapStatusBody>;
  /** Stops the engine and watcher and starts new ones on the same storage and keys, as a restarted process would. */
  restart(options?: { beforeStart?: () => Promise<void> }): Promise<void>;
  /** With `evm`: Ferry's EVM chain (RBTC) on the devnet's anvil, its operator account funded. */
  evm?: EvmWorld;
  /** Sat the operator wallet holds, confirmed or not (immature coinbases included, so maturing ones change nothing). */
  operatorBalance(): Promise<bigint>;
  close(): Promise<void>;
}

export interface EvmWorld {
  backend: EvmBackend;
  chain: EvmContractChain;
  /** The devnet's user account on anvil. */
  user: Wallet;
}

/**
 * Engine settings to change, a Lightning backend to use instead of the devnet's `ferry` node, and `evm` to serve
 * the EVM chain (claims batched over `claimBatchMs`).
 */
export type WorldOverrides = Omit<Partial<SwapEngineOptions>, 'lightning' | 'chains' | 'contracts'> & {
  lightning?: LightningBackend;
  evm?: { claimBatchMs?: number };
  /** Ferry's BTC fee estimate (sat/vbyte) instead of the devnet node's. */
  btcFeeRate?: () => Promise<number>;
};

export async function startWorld(overrides: WorldOverrides = {}): Promise<World> {
  const dataDir = mkdtempSync(join(tmpdir(), 'ferry-engine-'));
  process.once('exit', () => rmSync(dataDir, { recursive: true, force: true }));
  const devnet = await startDevnet({ dataDir, ...ephemeralDevnetPorts, cln: onCln() });
  const { rpcUrl, rpcUser, rpcPassword, wallets } = devnet.info.bitcoin;
  const node = new CoreRpcClient({ url: rpcUrl, user: rpcUser, password: rpcPassword });
  const operator = node.wallet(wallets.operator);
  const user = node.wallet(wallets.user);
  const storage = await openStorage(join(dataDir, 'ferry.sqlite'));
  const newWatcher = () =>
    new ChainWatcher({ chain: 'BTC', rpc: node, codec: bitcoinCodec, checkpoints: storage.checkpoints, pollIntervalMs: 50, logger: silentWatcherLogger });
  const ln = devnet.info.lightning;
  const ferryNode = ferryNodeClient(devnet.info);
  const alice = new LndRestClient({ url: ln.alice.restUrl, macaroon: ln.alice.macaroon });
  const mnemonic = generateMnemonic(wordlist, 256);
  const keys = SwapKeys.fromMnemonic(mnemonic, 'regtest');
  const published = new Map<string, string[]>();
  const { lightning, evm: evmOptions, btcFeeRate, ...settings } = overrides;
  const evm = evmOptions && (await connectEvmWorld(dataDir, devnet, storage, mnemonic, evmOptions.claimBatchMs));
  const newEngine = (watcher: ChainWatcher) => {
    const engine = new SwapEngine({
      storage,
      chains: new Map([['BTC', new BitcoinBackend({ symbol: 'BTC', network: 'regtest', rpc: operator, watcher, feeEstimator: btcFeeRate })]]),
      lightning: new Map([['BTC', lightning ?? ferryNode]]),
      ...(evm && { contracts: new Map([[evm.chain.symbol, evm.chain]]) }),
      keys,
      logger: silentLogger,
      claimDelayMs: 60_000,
      invoicePollMs: 100,
      effectRetryMs: 100,
      effectRetryMaxMs: 500,
      ...settings,
    });
    engine.onStatus((id, body) => published.set(id, [...(published.get(id) ?? []), body.status]));
    return engine;
  };
  const burn = await user.getNewAddress();
  const firstWatcher = newWatcher();

  const world: World = {
    dataDir,
    devnet,
    storage,
    node,
    operator,
    user,
    watcher: firstWatcher,
    ferryNode,
    alice,
    keys,
    engine: newEngine(firstWatcher),
    published,
    ...(evm && { evm }),
    async mine(blocks = 1) {
      await node.generateToAddress(blocks, burn);
      await world.watcher.sync();
    },
    height: () => node.getBlockCount(),
    async waitForStatus(id, status, timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      let last: SwapStatusBody | undefined;
      while (Date.now() < deadline) {
        await world.watcher.sync().catch(() => {});
        last = await world.engine.status(id);
        if (last?.status === status) return last;
        await new Promise((resolve) => setTimeout(resolve, 30));
      }
      throw new Error(`swap ${id} did not reach ${status}; it is ${JSON.stringify(last)} (seen: ${published.get(id)?.join(' → ')})`);
    },
    async operatorBalance() {
      const { mine } = await operator.getBalances();
      return btcToSat(mine.trusted) + btcToSat(mine.untrusted_pending) + btcToSat(mine.immature);
    },
    async restart(options = {}) {
      await world.engine.stop();
      await world.watcher.stop();
      world.watcher = newWatcher();
      world.engine = newEngine(world.watcher);
      await options.beforeStart?.();
      await world.engine.start();
    },
    async close() {
      await world.engine.stop();
      await world.watcher.stop();
      await evm?.backend.close();
      await storage.close();
      await devnet.close();
    },
  };
  await world.engine.start();
  return world;
}

/** Ferry's EVM chain on the devnet's anvil with Ferry's own operator account (from its mnemonic), funded. */
async function connectEvmWorld(dataDir: string, devnet: Devnet, storage: Storage, mnemonic: string, claimBatchMs?: number): Promise<EvmWorld> {
  const settings = evmSettings(withDevnet(loadConfig({ env: { FERRY_DATA_DIR: dataDir } }), devnet.info));
  const backend = await connectEvm({ ...settings, pollIntervalMs: 50 }, { checkpoints: storage.checkpoints, mnemonic, logger: silentLogger });
  const funder = new Wallet(devnet.info.evm.accounts.operator.privateKey, devnet.evm.provider);
  await fundAccounts(devnet.evm.provider, funder, [backend.signer.address]);
  const chain = new EvmContractChain(backend, { claimBatchMs: claimBatchMs ?? 200 });
  return { backend, chain, user: new Wallet(devnet.info.evm.accounts.user.privateKey, devnet.evm.provider) };
}
