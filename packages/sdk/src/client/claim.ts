// Claims: a reverse swap's output to our wallet (key path with the service's signature, or the claim leaf
// with the preimage when it does not cooperate), and our signature for the service's key-path claim of a
// submarine swap, given only once it proves the invoice was paid. What differs per chain (the output, the
// unblinding of a Liquid lockup, the transactions) is the swap's SwapChain.
import type { ServiceApi } from './api.ts';
import type { ChainSource } from './chain.ts';
import { destinationOf, swapChain, type SwapChain } from './chains/index.ts';
import { ServiceError, ServiceUnreachableError, VerificationError } from './errors.ts';
import { equalBytes, fromHex, keyPairOf, publicKeyFromHex, sha256 } from './keys.ts';
import { signServiceClaim, signTogether, type SwapSigner } from './musig.ts';
import type { NetworkName } from './network.ts';
import type { ReverseRecord, SpendPath, SubmarineRecord, SwapOutputRecord } from './records.ts';
import type { PartialSignature } from './types.ts';
import type { BuiltTransaction } from '../chains/backend.ts';

/** Our side of a stored swap's output: keys, tree, chain, and what the chain derives from them. */
export interface SwapOwner extends SwapSigner {
  outputScript: Uint8Array;
  /** x-only MuSig2 aggregate of [service, client], untweaked: script-path spends need it. */
  internalKey: Uint8Array;
  blindingKey?: Uint8Array;
}

/** Our side of a swap output from its parts; `currency` picks the chain. */
export function ownerOf(parts: Pick<SwapOutputRecord, 'privateKey' | 'swapTree' | 'currency' | 'blindingKey'> & { servicePublicKey: unknown }): SwapOwner {
  const chain: SwapChain = swapChain(parts.currency);
  const key = keyPairOf(fromHex(parts.privateKey, 'privateKey', 32));
  const servicePublicKey = publicKeyFromHex(parts.servicePublicKey, 'servicePublicKey');
  const tree = chain.parseTree(parts.swapTree);
  const { outputScript, internalKey } = chain.outputKey(servicePublicKey, key.publicKey, tree);
  const blindingKey = parts.blindingKey === undefined ? undefined : fromHex(parts.blindingKey, 'blindingKey', 32);
  return { ...key, servicePublicKey, tree, chain, outputScript, internalKey, blindingKey };
}

export interface ClaimOptions {
  destination: string;
  network: NetworkName;
  chain: ChainSource;
  api?: ServiceApi;
  /** Try the key path with the service first (default true). */
  cooperative?: boolean;
  /** The service's lockup transaction, when already at hand (status updates carry it). */
  lockupHex?: string;
  feeRate?: number;
}

export interface ClaimResult extends BuiltTransaction {
  path: SpendPath;
  destination: string;
  cooperativeFailure?: string;
}

/**
 * A swap output we claim with the preimage — a reverse swap's lockup, or the service's lockup of a chain swap — and
 * how the service takes part: where it tells the lockup, how it co-signs our key-path claim, and how it learns the
 * preimage after a script-path claim.
 */
export interface Claimable {
  id: string;
  owner: SwapOwner;
  preimage: string;
  lockupAddress: string;
  /** The least the lockup must hold: claiming reveals the preimage, which pays the service. */
  agreedAmount: number;
  lockupTxid?: string;
  serviceLockupHex(): Promise<string>;
  cosign(toSign: { pubNonce: string; transaction: string; index: number }): Promise<PartialSignature | Record<string, never>>;
  announcePreimage(): Promise<unknown>;
}

async function lockupHexOf(claimable: Claimable, options: ClaimOptions): Promise<string> {
  if (options.lockupHex !== undefined) return options.lockupHex;
  if (claimable.lockupTxid !== undefined) return options.chain.transactionHex(claimable.lockupTxid);
  if (options.api === undefined) throw new Error(`the lockup transaction of swap ${claimable.id} is unknown`);
  return claimable.serviceLockupHex();
}

/** Why the service did not sign, when that is the kind of failure the script path gets around. */
export function cooperationFailure(error: unknown): string {
  if (!(error instanceof ServiceError || error instanceof ServiceUnreachableError || error instanceof VerificationError)) throw error;
  return error instanceof ServiceError ? (error.reason ?? error.message) : error.message;
}

/** Claims the output: through the key path with the service's signature, else through the claim leaf with the preimage. */
export async function claimLockup(claimable: Claimable, options: ClaimOptions): Promise<ClaimResult> {
  const { owner } = claimable;
  const { chain } = owner;
  const destination = destinationOf(chain, options.destination, options.network);
  const preimage = fromHex(claimable.preimage, 'preimage', 32);
  const lockup = await chain.findLockup(await lockupHexOf(claimable, options), owner.outputScript, options.network, owner.blindingKey);
  if (lockup === undefined) throw new VerificationError(`the service's lockup does not pay the swap address ${claimable.lockupAddress}`);
  if (lockup.value < BigInt(claimable.agreedAmount)) {
    throw new VerificationError(`the service locked ${lockup.value} sat, not the ${claimable.agreedAmount} agreed: not claiming`);
  }
  const spend = {
    lockup,
    destination,
    network: options.network,
    feeRate: options.feeRate ?? (await options.chain.feeRate()),
  };

  let cooperativeFailure: string | undefined;
  if (options.api !== undefined && options.cooperative !== false) {
    const draft = chain.keyPathDraft(spend);
    try {
      const signature = await signTogether(owner, draft.sighash, (pubNonce) => claimable.cosign({ pubNonce, transaction: draft.unsignedHex, index: 0 }));
      const built = draft.finish(signature);
      await options.chain.broadcast(built.hex);
      return { ...built, path: 'key', destination: options.destination };
    } catch (error) {
      cooperativeFailure = cooperationFailure(error);
    }
  }

  const built = chain.scriptPathClaim({ ...spend, tree: owner.tree, internalKey: owner.internalKey, privateKey: owner.privateKey, preimage });
  await options.chain.broadcast(built.hex);
  // The preimage is on chain now; handing it over too lets the service finish without waiting for a block.
  if (options.api !== undefined) await claimable.announcePreimage().catch(() => undefined);
  return { ...built, path: 'script', destination: options.destination, cooperativeFailure };
}

export function claimReverse(record: ReverseRecord, options: ClaimOptions): Promise<ClaimResult> {
  const { api } = options;
  const service = () => {
    if (api === undefined) throw new Error('no service to ask');
    return api;
  };
  return claimLockup(
    {
      id: record.id,
      owner: ownerOf(record),
      preimage: record.preimage,
      lockupAddress: record.lockupAddress,
      agreedAmount: record.onchainAmount,
      lockupTxid: record.lockup?.txid,
      serviceLockupHex: async () => (await service().reverseTransaction(record.id)).hex,
      cosign: (toSign) => service().reverseClaim(record.id, { preimage: record.preimage, ...toSign }),
      announcePreimage: () => service().reverseClaim(record.id, { preimage: record.preimage }),
    },
    options,
  );
}

/**
 * Signs the service's key-path claim of a submarine lockup, after checking that the preimage it shows
 * hashes to the invoice's payment hash (the proof that the invoice was paid). Returns that preimage.
 */
export async function cosignSubmarineClaim(record: SubmarineRecord, api: ServiceApi): Promise<Uint8Array> {
  const details = await api.submarineClaimDetails(record.id);
  const signer = ownerOf(record);
  let preimage: Uint8Array;
  let transactionHash: Uint8Array;
  let serviceNonce: Uint8Array;
  try {
    preimage = fromHex(details.preimage, 'preimage', 32);
    transactionHash = fromHex(details.transactionHash, 'transactionHash', 32);
    serviceNonce = fromHex(details.pubNonce, 'pubNonce', 66);
  } catch (error) {
    throw new VerificationError(`unusable claim details: ${(error as Error).message}`);
  }
  if (!equalBytes(sha256(preimage), fromHex(record.preimageHash, 'preimageHash', 32))) {
    throw new VerificationError("the preimage the service shows is not the invoice's: it has not proven payment");
  }
  if (details.publicKey !== undefined && details.publicKey.toLowerCase() !== record.servicePublicKey.toLowerCase()) {
    throw new VerificationError(`the claim is for key ${details.publicKey}, not the swap's service key`);
  }
  await api.submarineClaimSignature(record.id, signServiceClaim(signer, transactionHash, serviceNonce));
  return preimage;
}
