// The devnet's EVM chain: anvil (JSON-RPC on 8545, chain id 31337, its test mnemonic's funded accounts, automine)
// with its state in <dataDir>/evm/state.json, boltz-core's swap contracts on it, and the accounts Ferry's side
// (operator) and the swapping user play.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { HDNodeWallet, JsonRpcProvider, Mnemonic, Wallet } from 'ethers';
import { startAnvil } from './anvil.ts';
import { ensureContracts, type Contracts } from './contracts.ts';
import { fundAccounts } from './fund.ts';

/** anvil's default mnemonic; its accounts (m/44'/60'/0'/0/i) hold 10000 coins each on a new chain. */
export const ANVIL_MNEMONIC = 'test test test test test test test test test test test junk';
export const ACCOUNT_INDEX = { operator: 0, user: 1 } as const;

export interface EvmAccount {
  index: number; // of anvil's account list (the mnemonic's m/44'/60'/0'/0/index)
  address: string;
  privateKey: string;
}

export interface EvmInfo {
  rpcUrl: string;
  chainId: number;
  mnemonic: string;
  accounts: { operator: EvmAccount; user: EvmAccount };
  contracts: Contracts; // etherSwap, erc20Swap, token (TestERC20 "TRC20", 18 decimals)
}

export interface EvmDevnetOptions {
  dataDir: string; // anvil's state, log and pid file in <dataDir>/evm/
  host?: string; // default 127.0.0.1
  port?: number; // default 8545; 0 = ephemeral (tests)
  blockIntervalMs?: number; // also mine a block (evm_mine) on a timer; transactions are mined at once regardless
  recorded?: Partial<Contracts>; // the addresses the last devnet.json lists, checked before deploying
  fund?: readonly string[]; // accounts topped up to 100 RBTC from account 0 at start (Ferry's operator: see fund.ts)
}

export interface EvmDevnet {
  info: EvmInfo;
  provider: JsonRpcProvider;
  close(): Promise<void>;
}

export function evmAccounts(mnemonic = ANVIL_MNEMONIC): EvmInfo['accounts'] {
  const root = HDNodeWallet.fromMnemonic(Mnemonic.fromPhrase(mnemonic), "m/44'/60'/0'/0");
  const account = (index: number): EvmAccount => {
    const { address, privateKey } = root.deriveChild(index);
    return { index, address, privateKey };
  };
  return { operator: account(ACCOUNT_INDEX.operator), user: account(ACCOUNT_INDEX.user) };
}

export async function startEvmDevnet(options: EvmDevnetOptions): Promise<EvmDevnet> {
  const dir = join(options.dataDir, 'evm');
  mkdirSync(dir, { recursive: true });
  const anvil = await startAnvil({ dir, host: options.host ?? '127.0.0.1', port: options.port ?? 8545 });
  const provider = new JsonRpcProvider(anvil.rpcUrl, undefined, { staticNetwork: true, pollingInterval: 100, cacheTimeout: -1, batchStallTime: 0 });
  let timer: NodeJS.Timeout | undefined;
  const close = async () => {
    if (timer) clearInterval(timer);
    provider.destroy();
    await anvil.stop();
  };
  try {
    const chainId = Number(await provider.send('eth_chainId', []));
    const accounts = evmAccounts();
    const operator = new Wallet(accounts.operator.privateKey, provider);
    const contracts = await ensureContracts(provider, operator, accounts.user.address, options.recorded);
    await fundAccounts(provider, operator, options.fund ?? []);
    if (options.blockIntervalMs && options.blockIntervalMs > 0) {
      timer = setInterval(() => void provider.send('evm_mine', []).catch(() => {}), options.blockIntervalMs);
      timer.unref();
    }
    return { info: { rpcUrl: anvil.rpcUrl, chainId, mnemonic: ANVIL_MNEMONIC, accounts, contracts }, provider, close };
  } catch (error) {
    await close();
    throw error;
  }
}
