/// <reference lib="dom" />
// The refund view's RBTC part. An RBTC lockup can be refunded only by its refund address — the Ethereum wallet's
// account that locked it — so the wallet, not a file, is what finds it: the contract's Lockup logs name every lockup
// of the account still in the contract (nothing of this browser needed), and Ferry's restore by address (the
// account's signed proof) names their swaps and statuses. A chosen lockup is refunded through the wallet: with
// Ferry's EIP-712 signature when Ferry gives one, else by EtherSwap's `refund` once the timelock block is reached.
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
  /** Ferry's swap of this lockup, when its restore names one. */
  id?: string;
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

/** Connects the wallet (the page's one connection) and lists the account's lockups still in the swap contract. */
export async function findWalletRefunds(tools: EvmPageTools): Promise<WalletRefunds> {
  const swaps = await connectWallet(tools);
  const { chain } = swaps;
  // Ferry's swaps of the account, restored into a store in memory: this browser's own swaps are not touched.
  const scratch = new ContractSwaps({ api: tools.client.api, network: tools.network, chain, store: new ClientStore(new MemoryStorage()) });
  const locked = await chain.lockupsOf(chain.address);
  // The contract alone says what can be refunded; Ferry's answer only names the swaps.
  const restored = locked.length === 0 ? [] : await scratch.restore().then((result) => result.restored, (error: unknown) => error as Error);
  const lockups = locked.map((lockup): WalletLockup => {
    const swap = (restored instanceof Error ? [] : restored).find((record) => record.type === 'submarine' && record.preimageHash === lockup.preimageHash);
    const entry: WalletLockup = { lockup, id: swap?.id, status: swap?.status };
    if (entry.status !== undefined && PAID.includes(entry.status)) entry.blocked = 'the invoice was paid: Ferry takes these coins';
    return entry;
  });
  return {
    account: chain.address,
    lockups,
    ...(restored instanceof Error && { restoreFailure: restored.message }),
    async refund(entry) {
      const refunded = await swaps.refundLockup(entry.lockup, { id: entry.id });
      // A swap this browser made is kept as refunded in its history.
      if (entry.id !== undefined && tools.store.hasContract(entry.id)) {
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
