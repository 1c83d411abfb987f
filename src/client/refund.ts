// Getting coins back from a failed submarine swap: cooperatively through the key path (the service signs,
// no waiting), or alone through the refund leaf once the timeout block is reached (nLockTime = timeout,
// non-final sequence). Works from the client store's record or from a refund file, with or without the
// service: the lockup is found from a known txid, or by asking the service.
import type { ServiceApi } from './api.ts';
import type { ChainSource } from './chain.ts';
import { RefundTooEarlyError, ServiceError, ServiceUnreachableError, VerificationError } from './errors.ts';
import { fromHex, keyPairOf, publicKeyFromHex, toHex } from './keys.ts';
import { signTogether } from './musig.ts';
import { scriptOfAddress, type NetworkName } from './network.ts';
import type { SpendPath, SubmarineRecord } from './records.ts';
import type { RefundFile } from './refund-file.ts';
import { deserializeTree, internalKey, lockupScript, type SwapTree } from './taproot.ts';
import {
  findOutput,
  keyPathDraft,
  legacyOutputScripts,
  legacyRefund,
  scriptPathRefund,
  type BuiltTransaction,
  type LegacyOutputType,
  type SwapOutput,
} from '../chains/bitcoin/spends.ts';

/** Everything a refund needs, whichever way the swap is known. */
export interface Refundable {
  id: string;
  currency: string;
  privateKey: Uint8Array;
  publicKey: Uint8Array;
  timeoutBlockHeight: number;
  taproot?: { servicePublicKey: Uint8Array; tree: SwapTree; outputScript: Uint8Array };
  legacy?: { redeemScript: Uint8Array; outputScripts: Record<LegacyOutputType, Uint8Array> };
  /** The funding transaction, when known. */
  lockupTxid?: string;
}

export function refundableFromRecord(record: SubmarineRecord): Refundable {
  const key = keyPairOf(fromHex(record.privateKey, 'privateKey', 32));
  const servicePublicKey = publicKeyFromHex(record.servicePublicKey, 'servicePublicKey');
  const tree = deserializeTree(record.swapTree);
  return {
    id: record.id,
    currency: record.currency,
    ...key,
    timeoutBlockHeight: record.timeoutBlockHeight,
    taproot: { servicePublicKey, tree, outputScript: lockupScript(key.privateKey, key.publicKey, servicePublicKey, tree) },
    lockupTxid: record.lockup?.txid,
  };
}

export function refundableFromFile(file: RefundFile): Refundable {
  const key = keyPairOf(fromHex(file.privateKey, 'privateKey', 32));
  const base = { id: file.id, currency: file.currency, ...key, timeoutBlockHeight: file.timeoutBlockHeight };
  if (file.swapTree !== undefined) {
    const servicePublicKey = publicKeyFromHex(file.serverPublicKey ?? file.claimPublicKey, 'serverPublicKey');
    const tree = deserializeTree(file.swapTree);
    // The refund leaf must name the file's key, or the file cannot refund anything.
    const leaf = tree.refundLeaf.output;
    if (leaf[0] !== 0x20 || toHex(leaf.subarray(1, 33)) !== toHex(key.publicKey.subarray(1))) {
      throw new VerificationError("the refund file's private key is not the refund key of its swap tree");
    }
    return { ...base, taproot: { servicePublicKey, tree, outputScript: lockupScript(key.privateKey, key.publicKey, servicePublicKey, tree) } };
  }
  const redeemScript = fromHex(file.redeemScript, 'redeemScript');
  return { ...base, legacy: { redeemScript, outputScripts: legacyOutputScripts(redeemScript) } };
}

export interface RefundOptions {
  /** Address the refund pays to. */
  destination: string;
  network: NetworkName;
  chain: ChainSource;
  /** The service, for a cooperative refund and to find the lockup; leave out when it is gone. */
  api?: ServiceApi;
  /** Try the key path with the service first (default true). */
  cooperative?: boolean;
  /** The funding transaction, when the refundable does not know it. */
  lockupTxid?: string;
  /** sat/vbyte; default: the chain source's estimate. */
  feeRate?: number;
}

export interface RefundResult extends BuiltTransaction {
  path: SpendPath;
  destination: string;
  /** Why the key path was not taken, when it was tried. */
  cooperativeFailure?: string;
}

interface LocatedLockup {
  output: SwapOutput;
  legacyType?: LegacyOutputType;
}

function locate(refundable: Refundable, txHex: string): LocatedLockup | undefined {
  if (refundable.taproot) {
    const output = findOutput(txHex, refundable.taproot.outputScript);
    return output && { output };
  }
  for (const [type, script] of Object.entries(refundable.legacy!.outputScripts) as [LegacyOutputType, Uint8Array][]) {
    const output = findOutput(txHex, script);
    if (output) return { output, legacyType: type };
  }
  return undefined;
}

async function findLockup(refundable: Refundable, options: RefundOptions): Promise<LocatedLockup> {
  const txid = options.lockupTxid ?? refundable.lockupTxid;
  if (txid !== undefined) {
    const found = locate(refundable, await options.chain.transactionHex(txid));
    if (!found) throw new VerificationError(`transaction ${txid} does not pay the swap ${refundable.id}`);
    return found;
  }
  if (options.api === undefined) throw new Error(`the lockup transaction of swap ${refundable.id} is unknown: give its txid`);
  let hex: string;
  try {
    hex = (await options.api.submarineTransaction(refundable.id)).hex;
  } catch (error) {
    throw new Error(`the lockup transaction of swap ${refundable.id} is unknown and the service cannot tell it (${(error as Error).message}): give its txid`);
  }
  const found = locate(refundable, hex);
  if (!found) throw new VerificationError(`the service named a lockup transaction that does not pay the swap ${refundable.id}`);
  return found;
}

export async function refundSwap(refundable: Refundable, options: RefundOptions): Promise<RefundResult> {
  const { output, legacyType } = await findLockup(refundable, options);
  const destinationScript = scriptOfAddress(options.destination, options.network);
  const feeRate = options.feeRate ?? (await options.chain.feeRate());

  let cooperativeFailure: string | undefined;
  if (refundable.taproot && options.api !== undefined && options.cooperative !== false) {
    const { api } = options;
    const draft = keyPathDraft({ output, destination: destinationScript, feeRate });
    try {
      const signature = await signTogether(
        { privateKey: refundable.privateKey, publicKey: refundable.publicKey, ...refundable.taproot },
        draft.sighash,
        (pubNonce) => api.submarineRefund(refundable.id, { pubNonce, transaction: draft.unsignedHex, index: 0 }),
      );
      const built = draft.finish(signature);
      await options.chain.broadcast(built.hex);
      return { ...built, path: 'key', destination: options.destination };
    } catch (error) {
      if (!(error instanceof ServiceError || error instanceof ServiceUnreachableError || error instanceof VerificationError)) throw error;
      cooperativeFailure = error instanceof ServiceError ? (error.reason ?? error.message) : error.message;
    }
  }

  const height = await options.chain.height();
  if (height < refundable.timeoutBlockHeight) throw new RefundTooEarlyError(refundable.timeoutBlockHeight, height, cooperativeFailure);
  const built = refundable.taproot
    ? scriptPathRefund({
        output,
        tree: refundable.taproot.tree,
        internalKey: internalKey(refundable.privateKey, refundable.publicKey, refundable.taproot.servicePublicKey),
        privateKey: refundable.privateKey,
        destination: destinationScript,
        feeRate,
        timeoutBlockHeight: refundable.timeoutBlockHeight,
      })
    : legacyRefund({
        output,
        outputType: legacyType!,
        redeemScript: refundable.legacy!.redeemScript,
        privateKey: refundable.privateKey,
        timeoutBlockHeight: refundable.timeoutBlockHeight,
        destination: destinationScript,
        feeRate,
      });
  await options.chain.broadcast(built.hex);
  return { ...built, path: 'script', destination: options.destination, cooperativeFailure };
}
