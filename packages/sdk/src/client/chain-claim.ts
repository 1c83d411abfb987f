// Claiming the service's lockup of a chain swap. Cooperatively it is one exchange: we reveal the preimage, sign the
// service's key-path claim of our own lockup (which the preimage entitles it to anyway), and get its signature for
// our key-path claim of its lockup. Without the service, the claim leaf with the preimage; the service then reads
// the preimage off the chain and claims our lockup through its own claim leaf.
import type { ServiceApi } from './api.ts';
import { claimLockup, ownerOf, type ClaimOptions, type ClaimResult, type SwapOwner } from './claim.ts';
import { VerificationError } from './errors.ts';
import { fromHex } from './keys.ts';
import { signServiceClaim } from './musig.ts';
import type { ChainRecord } from './records.ts';
import type { PartialSignature } from './types.ts';

/** The amount the service must have locked: what was agreed at creation, or the quote we accepted; 0 in a zero-amount swap. */
export const agreedServerAmount = (record: ChainRecord): number => record.quote?.amount ?? record.serverLockAmount;

/**
 * Our partial signature of the service's key-path claim of our lockup, if it offers one now; undefined when it does
 * not (it may have claimed already, or be past the point where it can): our claim does not depend on it.
 */
export async function signServiceClaimOfOurLockup(record: { id: string; servicePublicKey: string }, api: ServiceApi, ours: SwapOwner): Promise<PartialSignature | undefined> {
  let details;
  try {
    details = await api.chainClaimDetails(record.id);
  } catch {
    return undefined;
  }
  if (details.publicKey?.toLowerCase() !== record.servicePublicKey.toLowerCase()) {
    throw new VerificationError(`the service's claim of our lockup is for key ${details.publicKey}, not the swap's`);
  }
  let transactionHash: Uint8Array;
  let serviceNonce: Uint8Array;
  try {
    transactionHash = fromHex(details.transactionHash, 'transactionHash', 32);
    serviceNonce = fromHex(details.pubNonce, 'pubNonce', 66);
  } catch (error) {
    throw new VerificationError(`unusable claim details: ${(error as Error).message}`);
  }
  return signServiceClaim(ours, transactionHash, serviceNonce);
}

/** Claims the service's lockup, which must hold at least `agreedAmount`. */
export function claimChain(record: ChainRecord, agreedAmount: number, options: ClaimOptions): Promise<ClaimResult> {
  const { api } = options;
  const service = () => {
    if (api === undefined) throw new Error('no service to ask');
    return api;
  };
  const side = record.claimSide;
  return claimLockup(
    {
      id: record.id,
      owner: ownerOf(side),
      preimage: record.preimage,
      lockupAddress: side.lockupAddress,
      agreedAmount,
      lockupTxid: side.lockup?.txid,
      async serviceLockupHex() {
        const server = (await service().chainTransactions(record.id)).serverLock;
        if (server === undefined) throw new Error(`the service has not locked for swap ${record.id} yet`);
        return server.transaction.hex;
      },
      async cosign(toSign) {
        const signature = await signServiceClaimOfOurLockup(record, service(), ownerOf(record));
        return service().chainClaim(record.id, { preimage: record.preimage, ...(signature !== undefined && { signature }), toSign });
      },
      announcePreimage: () => service().chainClaim(record.id, { preimage: record.preimage }),
    },
    options,
  );
}
