// The devnet's EVM chain as the tools reach it (--chain RBTC): anvil's JSON-RPC from devnet.json through ethers,
// sending from the user (or operator) account it lists. Amounts are in RBTC, 18 decimals like ether; balances are
// given in wei and in coins, as strings (wei exceed a JSON number's exact range).
import { Contract, JsonRpcProvider, Wallet, formatEther, formatUnits, isAddress, parseEther, toQuantity } from 'ethers';
import type { DevnetInfo } from '../index.ts';
import type { EvmInfo } from '../evm/index.ts';
import { artifact, TOKEN } from '../evm/contracts.ts';

export type EvmRole = keyof EvmInfo['accounts'];

function evmInfo(info: DevnetInfo): EvmInfo {
  // A devnet.json written before anvil started with every devnet has no entry.
  if (!info.evm) throw new Error('devnet.json has no evm entry: restart the devnet');
  return info.evm;
}

async function withProvider<T>(info: DevnetInfo, use: (provider: JsonRpcProvider) => Promise<T>): Promise<T> {
  const options = { staticNetwork: true, cacheTimeout: -1, batchStallTime: 0, pollingInterval: 100 };
  const provider = new JsonRpcProvider(evmInfo(info).rpcUrl, undefined, options);
  try {
    return await use(provider);
  } finally {
    provider.destroy();
  }
}

export const isEvmAddress = (address: string): boolean => isAddress(address);

/** Sends AMOUNT RBTC from a devnet account; resolves once the transaction is mined (at once: anvil automines). */
export async function evmSend(info: DevnetInfo, to: string, amount: string, role: EvmRole): Promise<{ txid: string }> {
  return withProvider(info, async (provider) => {
    const wallet = new Wallet(evmInfo(info).accounts[role].privateKey, provider);
    const tx = await wallet.sendTransaction({ to, value: parseEther(amount) });
    await tx.wait();
    return { txid: tx.hash };
  });
}

export async function evmMine(info: DevnetInfo, blocks: number): Promise<{ blocks: string[]; height: number }> {
  return withProvider(info, async (provider) => {
    const before = await provider.getBlockNumber();
    await provider.send('anvil_mine', [toQuantity(blocks)]);
    const mined = await Promise.all(Array.from({ length: blocks }, (_, i) => provider.getBlock(before + 1 + i)));
    return { blocks: mined.map((block) => block!.hash!), height: await provider.getBlockNumber() };
  });
}

/** The operator's and user's coins (wei and RBTC) and test tokens. */
export async function evmBalances(info: DevnetInfo): Promise<Record<string, unknown>> {
  const { accounts, contracts } = evmInfo(info);
  return withProvider(info, async (provider) => {
    const token = new Contract(contracts.token, artifact('token').abi, provider);
    const balances: Record<string, unknown> = {};
    for (const [role, { address }] of Object.entries(accounts)) {
      const wei = await provider.getBalance(address);
      const tokens: bigint = await token.getFunction('balanceOf')(address);
      balances[role] = { address, wei: wei.toString(), rbtc: formatEther(wei), [TOKEN.symbol]: formatUnits(tokens, TOKEN.decimals) };
    }
    return balances;
  });
}
