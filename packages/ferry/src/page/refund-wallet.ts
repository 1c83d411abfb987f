/// <reference lib="dom" />
// The refund view's RBTC part. An RBTC lockup can be refunded only by its refund address — the Ethereum wallet's
// account that locked it — so the wallet, not a file, is what finds it: the contract's Lockup logs name every lockup
// of the account still in the contract (nothing of this browser needed), and Ferry's restore by address (the
// account's signed proof) names their swaps — submarine swaps, and chain swaps out of RBTC — and statuses. A chosen
// lockup is refunded through the wallet: with Ferry's EIP-712 signature of its swap (the submarine or the chain
// endpoint) when Ferry gives one, else by EtherSwap's `refund` once the timelock block is reached.
// Loaded (with ethers) only when the user asks for RBTC swaps in the refund view.
import {
  CONTRACT_SUBMARINE_SUCCESS,
  ClientStore,
  ContractSwaps,
  MemoryStorage,
  type ContractRefund,
  type LoggedLockup,
} from '@ferry/sdk/client/index.js';
import { connectWallet, type EvmPageTools } from './evm-wallet.ts';

/** A lockup of the account still in the contract, and what Ferry says of its swap. */
export interface WalletLockup {
  lockup: LoggedLockup;
  /** Ferry's swap of this lockup, when its restore names one, and its type (a submarine swap, or a chain swap's lock). */
  id?: string;
  swapType?: 'submarine' | 'chain';
  status?: string;
  /** Why it cannot be refunded from here, if so. */
  blocked?: string;
}

export interface WalletRefunds {
  account: string;
  lockups: WalletLockup[];
  /** Why Ferry's restore named no swaps (the proof refused in the wallet, Ferry unreachable), if so: the lockups stand. */
  restoreFailure?: string;
  refund(entry: WalletLockup): Promise<ContractRefund>;
}

/** The statuses in which Ferry paid the invoice: the lockup is Ferry's to take, not the user's to refund. */
const PAID = ['invoice.paid', ...CONTRACT_SUBMARINE_SUCCESS];
/** A chain swap's statuses once the user claimed Ferry's coins (the preimage out): the lock is Ferry's to take. */
const CHAIN_CLAIMED = ['transaction.claim.pending', 'transaction.claimed'];

/** Connects the wallet (the page's one connection) and lists the account's lockups still in the swap contract. */
export async function findWalletRefunds(tools: EvmPageTools): Promise<WalletRefunds> {
  const swaps = await connectWallet(tools);
  const { chain } = swaps;
  // Ferry's swaps of the account, restored into a store in memory: this browser's own swaps are not touched.
  const scratch = new ContractSwaps({ api: tools.client.api, network: tools.network, chain, store: new ClientStore(new MemoryStorage()) });
  const locked = await chain.lockupsOf(chain.address);
  // The contract alone says what can be refunded; Ferry's answer only names the swaps.
  const restored = locked.length === 0 ? { restored: [], known: [], skipped: [], chains: [] } : await scratch.restore().catch((error: unknown) => error as Error);
  const lockups = locked.map((lockup): WalletLockup => {
    const named = restored instanceof Error ? undefined : restored;
    const swap = named?.restored.find((record) => record.type === 'submarine' && record.preimageHash === lockup.preimageHash);
    // A chain swap out of RBTC is not restored into a record: Ferry's answer names it, and its lock is ours.
    const chainSwap = named?.chains.find((entry) => entry.preimageHash === lockup.preimageHash && entry.from === chain.currency);
    if (chainSwap !== undefined) {
      const entry: WalletLockup = { lockup, id: chainSwap.id, swapType: 'chain', status: chainSwap.status };
      if (CHAIN_CLAIMED.includes(chainSwap.status)) entry.blocked = "you claimed Ferry's coins: Ferry takes these";
      return entry;
    }
    const entry: WalletLockup = { lockup, id: swap?.id, status: swap?.status, ...(swap !== undefined && { swapType: 'submarine' as const }) };
    if (entry.status !== undefined && PAID.includes(entry.status)) entry.blocked = 'the invoice was paid: Ferry takes these coins';
    return entry;
  });
  return {
    account: chain.address,
    lockups,
    ...(restored instanceof Error && { restoreFailure: restored.message }),
    async refund(entry) {
      const refunded = await swaps.refundLockup(entry.lockup, { id: entry.id, swapType: entry.swapType });
      // A swap this browser made is kept as refunded in its history.
      const chainRecord = entry.swapType === 'chain' ? tools.store.listContractChains().find((record) => record.id === entry.id) : undefined;
      if (chainRecord !== undefined) {
        const record = chainRecord;
        record.contractSide.refund = { txHash: refunded.txHash, path: refunded.path, amount: refunded.lockup.amount.toString(), fee: refunded.fee.toString() };
        tools.store.saveContractChain(record);
        tools.renderHistory();
      } else if (entry.id !== undefined && tools.store.hasContract(entry.id)) {
        const record = tools.store.loadContract(entry.id);
        if (record.type === 'submarine') {
          record.refund = { txHash: refunded.txHash, path: refunded.path, amount: refunded.lockup.amount.toString(), fee: refunded.fee.toString() };
          swaps.save(record);
          tools.renderHistory();
        }
      }
      return refunded;
    },
  };
}
