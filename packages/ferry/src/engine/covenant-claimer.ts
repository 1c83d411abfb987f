// Ferry's covenant claimer (the reference's covclaim, inside Ferry): a receiver of a reverse swap created with a claim
// covenant hands over its preimage (POST /v2/swap/covenant) and may go offline; once Ferry's lockup is out, Ferry
// broadcasts the covenant claim, which pays the committed address the committed amount — the only claim the leaf
// allows — and learns nothing it could spend for itself. The claim on chain reveals the preimage, so the invoice is
// settled the way any client claim settles it: the claimer never settles anything itself, so the hold invoice is still
// settled only once the claim is seen on chain.
// Registrations are durable: each is a row of the key-value table (`covenant-claim:<swap id>`, as commitments.ts and
// the reverse lockup keep their per-swap marks), not a field of the swap's `data`. The swap row is written only
// through versioned transitions of its machine; a registration arriving while the machine moves would race those
// writes, and it is not state the machine reads — nor must it be: the machine settles the hold invoice with
// `data.preimage` (hold-invoice.ts), which must come from the claim seen on chain, not from a registration. The table
// is shared by every instance (SQLite or PostgreSQL), so the leader finds a registration a standby took; a restarted
// engine (start()) claims the registered swaps whose lockup is out. The row goes once the claim is broadcast (rebroadcasting it is harmless, ensureBroadcast), or once
// the swap is final without it.
import { sha256 } from '@noble/hashes/sha2.js';
import { hex } from '@scure/base';
import { Transaction } from 'liquidjs-lib';
import type { ClaimCovenantTerms } from '@ferry/sdk/chains/backend.js';
import { claimCovenantTerms, committedAmount } from '@ferry/sdk/chains/liquid/covenant.js';
import { covenantClaim } from '@ferry/sdk/chains/liquid/covenant-claim.js';
import { deserializeLiquidTree, liquidSwapOutput, liquidSwapOutputKey } from '@ferry/sdk/chains/liquid/htlc.js';
import { SwapError, type CovenantRegistration } from '@ferry/sdk/protocol/index.js';
import { reverseMachine } from '@ferry/sdk/swaps/reverse-machine.js';
import { SwapType } from '@ferry/sdk/swaps/status.js';
import type { SwapRecord } from '../db/index.ts';
import type { EngineContext } from './context.ts';
import { crashPoint } from './crash-points.ts';
import { reverseData } from './data.ts';
import { legChain, serverLockupOf } from './legs/lockup-leg.ts';

/** What is stored: the preimage and the committed address (the terms are rebuilt and checked again from them). */
interface StoredRegistration {
  preimage: string;
  address: string;
}

const registrationKey = (swapId: string) => `covenant-claim:${swapId}`;

/** The statuses after which nothing more happens to a reverse swap: its registration, if any, goes. */
const FINAL: readonly string[] = [...reverseMachine.succeeded, ...reverseMachine.failed];

/** The statuses of a reverse swap whose lockup is out and not yet claimed. */
const LOCKED = ['transaction.mempool', 'transaction.confirmed'] as const;

export class CovenantClaimer {
  /** Swaps whose claim this process is building now: a transition during a claim does not start a second one. */
  private readonly claiming = new Set<string>();

  constructor(private readonly ctx: EngineContext) {
    ctx.swaps.onTransition((swap) => void this.claimIfLocked(swap));
  }

  async register(request: CovenantRegistration): Promise<Record<string, never>> {
    if (!/^[0-9a-fA-F]{64}$/.test(request.preimage)) throw new SwapError('invalid', 'invalid parameter: preimage');
    const preimage = hex.decode(request.preimage.toLowerCase());
    const swap = await this.ctx.storage.swaps.getByPreimageHash(hex.encode(sha256(preimage)));
    if (swap === undefined || swap.type !== SwapType.Reverse) throw new SwapError('notFound', 'could not find swap with preimage hash');
    const data = reverseData(swap);
    const leaf = data.swapTree?.covenantClaimLeaf;
    if (leaf === undefined) throw new SwapError('invalid', 'swap has no claim covenant');
    const leaves = ['claimLeaf', 'refundLeaf', 'covenantClaimLeaf'] as const;
    const given = (request.tree ?? {}) as Partial<Record<(typeof leaves)[number], { version?: unknown; output?: unknown }>>;
    const sameLeaf = (name: (typeof leaves)[number]) =>
      given[name]?.version === data.swapTree![name]!.version && String(given[name]?.output).toLowerCase() === data.swapTree![name]!.output;
    if (!leaves.every(sameLeaf)) throw new SwapError('invalid', 'swap tree does not match');
    const keys = [['claimPublicKey', data.claimPublicKey], ['refundPublicKey', data.refundPublicKey], ['blindingKey', data.blindingKey]] as const;
    for (const [name, stored] of keys) {
      if (typeof request[name] !== 'string' || request[name].toLowerCase() !== stored) throw new SwapError('invalid', `${name} does not match`);
    }
    this.termsFor(swap, request.address, leaf.output);
    const stored: StoredRegistration = { preimage: hex.encode(preimage), address: request.address as string };
    await this.ctx.storage.kv.set(registrationKey(swap.id), JSON.stringify(stored));
    this.ctx.logger.info('covenant claim registered', { swap: swap.id });
    await this.claimIfLocked(swap);
    return {};
  }

  /** The leaf's terms for `address`, checked by rebuilding the leaf: the address must be the one committed. */
  private termsFor(swap: SwapRecord, address: unknown, leafHex: string): ClaimCovenantTerms {
    const data = reverseData(swap);
    const amount = committedAmount(leafHex);
    let terms: ClaimCovenantTerms;
    try {
      if (typeof address !== 'string' || amount === undefined) throw new Error('no address');
      terms = claimCovenantTerms(address, amount, this.ctx.settings.network);
    } catch {
      throw new SwapError('invalid', 'invalid address');
    }
    const { tree } = liquidSwapOutput(
      {
        kind: 'reverse',
        preimageHash: hex.decode(swap.preimageHash),
        claimPublicKey: hex.decode(data.claimPublicKey!),
        refundPublicKey: hex.decode(data.refundPublicKey!),
        timeoutBlockHeight: swap.timeoutBlockHeight!,
        servicePublicKey: hex.decode(data.refundPublicKey!),
        claimCovenant: terms,
      },
      new Uint8Array(33).fill(2),
      this.ctx.settings.network,
    );
    if (hex.encode(tree.covenantClaimLeaf!.output) !== leafHex) throw new SwapError('invalid', 'address does not match the covenant');
    return terms;
  }

  /** At the engine's start: claims every registered swap whose lockup went out (before or while Ferry was down). */
  async resume(): Promise<void> {
    for (const swap of await this.ctx.storage.swaps.listByStatus(LOCKED)) {
      if (swap.type === SwapType.Reverse && reverseData(swap).swapTree?.covenantClaimLeaf !== undefined) await this.claimIfLocked(swap);
    }
  }

  /** Broadcasts the covenant claim of a registered swap whose lockup is out; a failure is logged and retried on the next transition. */
  private async claimIfLocked(swap: SwapRecord): Promise<void> {
    if (swap.type !== SwapType.Reverse || reverseData(swap).swapTree?.covenantClaimLeaf === undefined) return;
    if (FINAL.includes(swap.status)) {
      // Claimed by the receiver itself, refunded or expired: the preimage has no business in the table any more.
      await this.ctx.storage.kv.delete(registrationKey(swap.id)).catch(() => false);
      return;
    }
    const leg = serverLockupOf(swap);
    if (leg.lockup === undefined || this.claiming.has(swap.id)) return;
    this.claiming.add(swap.id);
    try {
      const value = await this.ctx.storage.kv.get(registrationKey(swap.id));
      if (value === undefined) return;
      const stored = JSON.parse(value) as StoredRegistration;
      const data = reverseData(swap);
      const registration = { preimage: hex.decode(stored.preimage), terms: this.termsFor(swap, stored.address, data.swapTree!.covenantClaimLeaf!.output) };
      const tree = deserializeLiquidTree(data.swapTree!);
      const lockupTx = Transaction.fromHex(leg.lockup.hex);
      const lockup = { txid: leg.lockup.txid, vout: leg.lockup.vout, prevout: lockupTx.outs[leg.lockup.vout], blindingPrivateKey: hex.decode(data.blindingKey!) };
      const { internalKey } = liquidSwapOutputKey(hex.decode(data.refundPublicKey!), hex.decode(data.claimPublicKey!), tree);
      const claimHex = covenantClaim({ lockup, tree, internalKey, preimage: registration.preimage, terms: registration.terms });
      crashPoint('covenant-claim.built');
      const txid = await legChain(this.ctx, leg).ensureBroadcast(claimHex);
      this.ctx.logger.info('covenant claim broadcast', { swap: swap.id, txid });
      await this.ctx.storage.kv.delete(registrationKey(swap.id));
    } catch (error) {
      // The registration stays for the swap's next transition (its lockup confirming, say) or the next start.
      this.ctx.logger.warn('covenant claim failed', { swap: swap.id, error: (error as Error).message });
    } finally {
      this.claiming.delete(swap.id);
    }
  }
}
