// One scenario world: Ferry started in this process exactly as `ferry start` starts it (embedded devnet,
// SQLite, API on an ephemeral port), plus the wallets, chain and Lightning views the scenarios assert with: the
// Bitcoin wallet and chain, the Elements chain, and Liquid and RBTC wallets opened on demand with either swap library.
// Everything the scenarios do goes through Ferry's API or the devnet's Core/Elements RPC and LND REST endpoints
// (clnrest for Ferry's node when FERRY_TEST_LIGHTNING=cln runs Ferry on Core Lightning).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFerry, type Ferry } from '../../../../src/app.ts';
import { loadConfig } from '../../../../src/config/index.ts';
import type { DevnetInfo } from '@ferry/devnet/index.js';
import type { PayRequest } from '../../../../src/lightning/backend.ts';
import { createLogger } from '../../../../src/log/index.ts';
import { LiquidSwapWallet, type LiquidSwapLibrary } from '../../../helpers/liquid-swap-wallet.ts';
import { SwapWallet } from '../../../helpers/swap-wallet.ts';
import { EvmSwapWallet, type EtherSwapLibrary } from '../../../helpers/evm-swap-wallet.ts';
import { DevnetChain } from './chain.ts';
import { LiquidChain } from './liquid-chain.ts';
import { LightningNodes } from './lightning.ts';
import { ephemeralPorts } from '../../../helpers/ports.ts';
import { ferryConfigLightningEnv } from '../../../helpers/test-lightning.ts';

export interface World {
  ferry: Ferry;
  info: DevnetInfo;
  wallet: SwapWallet;
  chain: DevnetChain;
  /** The Elements chain L-BTC swaps lock on. */
  liquid: LiquidChain;
  lightning: LightningNodes;
  /** A Liquid wallet on `library`, closed with the world. */
  liquidWallet(library: LiquidSwapLibrary): Promise<LiquidSwapWallet>;
  /** An RBTC wallet with its own funded key on `library`'s EtherSwap ABI, closed with the world. */
  evmWallet(library: EtherSwapLibrary): Promise<EvmSwapWallet>;
  /** Ferry's log lines (warn and above), for failure messages. */
  log: string[];
  /** What Ferry asked its Lightning node to pay, in order (the request as its node gets it, cltv_limit included). */
  payRequests: PayRequest[];
  close(): Promise<void>;
}

export interface WorldOptions {
  /** How long Ferry waits for the wallet's cooperative claim signature (swap.claimDelayMs). */
  claimDelayMs?: number;
}

export async function startWorld(options: WorldOptions = {}): Promise<World> {
  const dataDir = mkdtempSync(join(tmpdir(), 'ferry-scenario-'));
  const config = loadConfig({ env: { FERRY_DATA_DIR: dataDir, ...ephemeralPorts, ...ferryConfigLightningEnv() } });
  // A fast watcher keeps each scenario step to a fraction of a second.
  config.bitcoin.pollIntervalMs = 100;
  config.liquid.pollIntervalMs = 100;
  config.evm.pollIntervalMs = 100;
  if (options.claimDelayMs !== undefined) config.swap.claimDelayMs = options.claimDelayMs;
  const log: string[] = [];
  const logger = createLogger({ level: 'warn', json: true, write: (line) => log.push(line) });
  const ferry = await startFerry(config, logger);
  const info = ferry.devnet!.info;
  const payRequests: PayRequest[] = [];
  const node = ferry.lightning.BTC;
  const pay = node.payInvoice.bind(node);
  node.payInvoice = (request) => {
    payRequests.push(request);
    return pay(request);
  };
  const wallet = await SwapWallet.open({ apiUrl: ferry.apiUrl, devnet: info });
  const liquidWallets: LiquidSwapWallet[] = [];
  const evmWallets: EvmSwapWallet[] = [];
  return {
    ferry,
    info,
    wallet,
    chain: new DevnetChain(info),
    liquid: new LiquidChain(info),
    lightning: new LightningNodes(info),
    liquidWallet: async (library) => {
      const opened = await LiquidSwapWallet.open({ apiUrl: ferry.apiUrl, devnet: info, library });
      liquidWallets.push(opened);
      return opened;
    },
    evmWallet: async (library) => {
      const opened = await EvmSwapWallet.open({ apiUrl: ferry.apiUrl, devnet: info, library });
      evmWallets.push(opened);
      return opened;
    },
    log,
    payRequests,
    close: async () => {
      wallet.close();
      for (const opened of liquidWallets) opened.close();
      for (const opened of evmWallets) opened.close();
      await ferry.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
