// Claims: a reverse swap's output to our wallet (key path with the service's signature, or the claim leaf
// with the preimage when it does not cooperate), and our signature for the service's key-path claim of a
// submarine swap, given only once it proves the invoice was paid.
import type { ServiceApi } from './api.ts';
import type { ChainSource } from './chain.ts';
import { ServiceError, ServiceUnreachableError, VerificationError } from './errors.ts';
import { equalBytes, fromHex, keyPairOf, publicKeyFromHex, sha256 } from './keys.ts';
import { signServiceClaim, signTogether, type SwapSigner } from './musig.ts';
import { scriptOfAddress, type NetworkName } from './network.ts';
import type { ReverseRecord, SpendPath, SubmarineRecord, SwapRecord } from './records.ts';
import { deserializeTree, internalKey, lockupScript } from './taproot.ts';
import { findOutput, keyPathDraft, scriptPathClaim, type BuiltTransaction } from '../chains/bitcoin/spends.ts';

export function signerOf(record: SwapRecord): SwapSigner & { outputScript: Uint8Array } {
  const key = keyPairOf(fromHex(record.privateKey, 'privateKey', 32));
  const servicePublicKey = publicKeyFromHex(record.servicePublicKey, 'servicePublicKey');
  const tree = deserializeTree(record.swapTree);
  return { ...key, servicePublicKey, tree, outputScript: lockupScript(key.privateKey, key.publicKey, servicePublicKey, tree) };
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

async function lockupHexOf(record: ReverseRecord, options: ClaimOptions): Promise<string> {
  if (options.lockupHex !== undefined) return options.lockupHex;
  if (record.lockup?.txid !== undefined) return options.chain.transactionHex(record.lockup.txid);
  if (options.api === undefined) throw new Error(`the lockup transaction of swap ${record.id} is unknown`);
  return (await options.api.reverseTransaction(record.id)).hex;
}

export async function claimReverse(record: ReverseRecord, options: ClaimOptions): Promise<ClaimResult> {
  const signer = signerOf(record);
  const preimage = fromHex(record.preimage, 'preimage', 32);
  const hex = await lockupHexOf(record, options);
  const output = findOutput(hex, signer.outputScript);
  // Claiming reveals the preimage, which pays the service the whole invoice: never for less than agreed.
  if (output === undefined) throw new VerificationError(`the service's lockup does not pay the swap address ${record.lockupAddress}`);
  if (output.value < BigInt(record.onchainAmount)) {
    throw new VerificationError(`the service locked ${output.value} sat, not the ${record.onchainAmount} agreed: not claiming`);
  }
  const destinationScript = scriptOfAddress(options.destination, options.network);
  const feeRate = options.feeRate ?? (await options.chain.feeRate());

  let cooperativeFailure: string | undefined;
  if (options.api !== undefined && options.cooperative !== false) {
    const { api } = options;
    const draft = keyPathDraft({ output, destination: destinationScript, feeRate });
    try {
      const signature = await signTogether(signer, draft.sighash, (pubNonce) =>
        api.reverseClaim(record.id, { preimage: record.preimage, pubNonce, transaction: draft.unsignedHex, index: 0 }),
      );
      const built = draft.finish(signature);
      await options.chain.broadcast(built.hex);
      return { ...built, path: 'key', destination: options.destination };
    } catch (error) {
      if (!(error instanceof ServiceError || error instanceof ServiceUnreachableError || error instanceof VerificationError)) throw error;
      cooperativeFailure = error instanceof ServiceError ? (error.reason ?? error.message) : error.message;
    }
  }

  const built = scriptPathClaim({
    output,
    tree: signer.tree,
    internalKey: internalKey(signer.privateKey, signer.publicKey, signer.servicePublicKey),
    privateKey: signer.privateKey,
    preimage,
    destination: destinationScript,
    feeRate,
  });
  await options.chain.broadcast(built.hex);
  // The preimage is on chain now; handing it over too lets the service settle without waiting for a block.
  if (options.api !== undefined) await options.api.reverseClaim(record.id, { preimage: record.preimage }).catch(() => undefined);
  return { ...built, path: 'script', destination: options.destination, cooperativeFailure };
}

/**
 * Signs the service's key-path claim of a submarine lockup, after checking that the preimage it shows
 * hashes to the invoice's payment hash (the proof that the invoice was paid). Returns that preimage.
 */
export async function cosignSubmarineClaim(record: SubmarineRecord, api: ServiceApi): Promise<Uint8Array> {
  const details = await api.submarineClaimDetails(record.id);
  const signer = signerOf(record);
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
