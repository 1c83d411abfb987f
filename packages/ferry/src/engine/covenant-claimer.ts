// Ferry's covenant claimer (the reference's covclaim, inside Ferry): a receiver of a reverse swap created with a claim
// covenant hands over its preimage (POST /v2/swap/covenant) and may go offline; once Ferry's lockup is out, Ferry
// broadcasts the covenant claim, which pays the committed address the committed amount — the only claim the leaf
// allows — and learns nothing it could spend for itself. The claim on chain reveals the preimage, so the invoice is
// settled the way any client claim settles it. Registrations live in memory until claimed (a restart forgets them).
import { sha256 } from '@noble/hashes/sha2.js';
import { hex } from '@scure/base';
import { Transaction } from 'liquidjs-lib';
import type { ClaimCovenantTerms } from '@ferry/sdk/chains/backend.js';
import { claimCovenantTerms, committedAmount } from '@ferry/sdk/chains/liquid/covenant.js';
import { covenantClaim } from '@ferry/sdk/chains/liquid/covenant-claim.js';
import { deserializeLiquidTree, liquidSwapOutput, liquidSwapOutputKey } from '@ferry/sdk/chains/liquid/htlc.js';
import { SwapError, type CovenantRegistration } from '@ferry/sdk/protocol/index.js';
import { SwapType } from '@ferry/sdk/swaps/status.js';
import type { SwapRecord } from '../db/index.ts';
import type { EngineContext } from './context.ts';
import { reverseData } from './data.ts';
import { legChain, serverLockupOf } from './legs/lockup-leg.ts';

interface Registration {
  preimage: Uint8Array;
  terms: ClaimCovenantTerms;
}

export class CovenantClaimer {
  private readonly pending = new Map<string, Registration>();

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
    const terms = this.termsFor(swap, request.address, leaf.output);
    this.pending.set(swap.id, { preimage, terms });
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

  /** Broadcasts the covenant claim of a registered swap whose lockup is out; a failure is logged and retried on the next transition. */
  private async claimIfLocked(swap: SwapRecord): Promise<void> {
    const registration = this.pending.get(swap.id);
    if (registration === undefined) return;
    const leg = serverLockupOf(swap);
    if (leg.lockup === undefined) return;
    this.pending.delete(swap.id);
    try {
      const data = reverseData(swap);
      const tree = deserializeLiquidTree(data.swapTree!);
      const lockupTx = Transaction.fromHex(leg.lockup.hex);
      const lockup = { txid: leg.lockup.txid, vout: leg.lockup.vout, prevout: lockupTx.outs[leg.lockup.vout], blindingPrivateKey: hex.decode(data.blindingKey!) };
      const { internalKey } = liquidSwapOutputKey(hex.decode(data.refundPublicKey!), hex.decode(data.claimPublicKey!), tree);
      const claimHex = covenantClaim({ lockup, tree, internalKey, preimage: registration.preimage, terms: registration.terms });
      const txid = await legChain(this.ctx, leg).ensureBroadcast(claimHex);
      this.ctx.logger.info('covenant claim broadcast', { swap: swap.id, txid });
    } catch (error) {
      // Kept for the swap's next transition (its lockup confirming, say) to try again.
      this.pending.set(swap.id, registration);
      this.ctx.logger.warn('covenant claim failed', { swap: swap.id, error: (error as Error).message });
    }
  }
}
