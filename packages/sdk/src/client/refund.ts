// Getting coins back from a failed submarine swap, or from our lockup of a failed chain swap: cooperatively through the key path (the service signs,
// no waiting), or alone through the refund leaf once the timeout block is reached (nLockTime = timeout,
// non-final sequence). Works from the client store's record or from a refund file, with or without the
// service: the lockup is found from a known txid, from its raw transaction, or by asking the service. The swap's SwapChain finds (and on
// Liquid unblinds) the lockup and builds the transactions; a legacy refund file's lockup is P2WSH or P2SH-P2WSH on
// Bitcoin, blinded P2WSH on Liquid (opened with the file's blindingKey).
import type { ServiceApi } from './api.ts';
import type { ChainSource } from './chain.ts';
import { cooperationFailure, ownerOf, type SwapOwner } from './claim.ts';
import { destinationOf, swapChain, type Lockup } from './chains/index.ts';
import { RefundTooEarlyError, VerificationError } from './errors.ts';
import { fromHex, keyPairOf, toHex } from './keys.ts';
import { signTogether } from './musig.ts';
import type { NetworkName } from './network.ts';
import type { RefundableRecord, SpendPath } from './records.ts';
import type { RefundFile } from './refund-file.ts';
import {
  findOutput,
  legacyOutputScripts,
  legacyRefund,
  type BuiltTransaction,
  type LegacyOutputType,
} from '../chains/bitcoin/spends.ts';

/** Everything a refund needs, whichever way the swap is known. */
export interface Refundable {
  id: string;
  /** Which endpoints the service answers for the swap: /v2/swap/submarine/… or /v2/swap/chain/…. */
  type: 'submarine' | 'chain';
  currency: string;
  privateKey: Uint8Array;
  publicKey: Uint8Array;
  timeoutBlockHeight: number;
  taproot?: SwapOwner;
  legacy?: { redeemScript: Uint8Array; outputScripts: Partial<Record<LegacyOutputType, Uint8Array>>; blindingKey?: Uint8Array };
  /** The funding transaction, when known. */
  lockupTxid?: string;
}

export function refundableFromRecord(record: RefundableRecord): Refundable {
  const owner = ownerOf(record);
  const { privateKey, publicKey } = owner;
  return { id: record.id, type: record.type, currency: record.currency, privateKey, publicKey, timeoutBlockHeight: record.timeoutBlockHeight, taproot: owner, lockupTxid: record.lockup?.txid };
}

export function refundableFromFile(file: RefundFile): Refundable {
  const key = keyPairOf(fromHex(file.privateKey, 'privateKey', 32));
  const base = { id: file.id, type: file.type ?? 'submarine', currency: file.currency, ...key, timeoutBlockHeight: file.timeoutBlockHeight };
  if (file.swapTree !== undefined) {
    const owner = ownerOf({ ...file, swapTree: file.swapTree, servicePublicKey: file.serverPublicKey ?? file.claimPublicKey });
    // The refund leaf must name the file's key, or the file cannot refund anything.
    const leaf = owner.tree.refundLeaf.output;
    if (leaf[0] !== 0x20 || toHex(leaf.subarray(1, 33)) !== toHex(key.publicKey.subarray(1))) {
      throw new VerificationError("the refund file's private key is not the refund key of its swap tree");
    }
    return { ...base, taproot: owner };
  }
  const redeemScript = fromHex(file.redeemScript, 'redeemScript');
  if (swapChain(file.currency).confidential) {
    // Liquid's legacy lockups are P2WSH only, blinded.
    const blindingKey = fromHex(file.blindingKey, 'blindingKey', 32);
    return { ...base, legacy: { redeemScript, outputScripts: { p2wsh: legacyOutputScripts(redeemScript).p2wsh }, blindingKey } };
  }
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
  /** The funding transaction itself (hex), e.g. one the service never saw: read as given, nothing fetched. */
  lockupHex?: string;
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
  lockup: Lockup;
  legacyType?: LegacyOutputType;
}

async function locate(refundable: Refundable, txHex: string, network: NetworkName): Promise<LocatedLockup | undefined> {
  const { taproot } = refundable;
  if (taproot) {
    const lockup = await taproot.chain.findLockup(txHex, taproot.outputScript, network, taproot.blindingKey);
    return lockup && { lockup };
  }
  const { outputScripts, blindingKey } = refundable.legacy!;
  const chain = swapChain(refundable.currency);
  for (const [type, script] of Object.entries(outputScripts) as [LegacyOutputType, Uint8Array][]) {
    const lockup = chain.confidential ? await chain.findLockup(txHex, script, network, blindingKey) : findOutput(txHex, script);
    if (lockup) return { lockup, legacyType: type };
  }
  return undefined;
}

/** Our lockup as the service tells it. */
async function serviceLockupHex(refundable: Refundable, api: ServiceApi): Promise<string> {
  if (refundable.type === 'submarine') return (await api.submarineTransaction(refundable.id)).hex;
  const user = (await api.chainTransactions(refundable.id)).userLock;
  if (user === undefined) throw new Error('the service has seen no lockup');
  return user.transaction.hex;
}

/** The output of `txHex` that pays the refundable's lockup script (unblinded on Liquid), if one does; throws for unparsable hex. */
export async function lockupPaying(refundable: Refundable, txHex: string, network: NetworkName): Promise<Lockup | undefined> {
  return (await locate(refundable, txHex, network))?.lockup;
}

async function findLockup(refundable: Refundable, options: RefundOptions): Promise<LocatedLockup> {
  if (options.lockupHex !== undefined) {
    const found = await locate(refundable, options.lockupHex, options.network);
    if (!found) throw new VerificationError(`the transaction given does not pay the swap ${refundable.id}`);
    return found;
  }
  const txid = options.lockupTxid ?? refundable.lockupTxid;
  if (txid !== undefined) {
    const found = await locate(refundable, await options.chain.transactionHex(txid), options.network);
    if (!found) throw new VerificationError(`transaction ${txid} does not pay the swap ${refundable.id}`);
    return found;
  }
  if (options.api === undefined) throw new Error(`the lockup transaction of swap ${refundable.id} is unknown: give its txid`);
  let hex: string;
  try {
    hex = await serviceLockupHex(refundable, options.api);
  } catch (error) {
    throw new Error(`the lockup transaction of swap ${refundable.id} is unknown and the service cannot tell it (${(error as Error).message}): give its txid`);
  }
  const found = await locate(refundable, hex, options.network);
  if (!found) throw new VerificationError(`the service named a lockup transaction that does not pay the swap ${refundable.id}`);
  return found;
}

export async function refundSwap(refundable: Refundable, options: RefundOptions): Promise<RefundResult> {
  const { taproot } = refundable;
  const chain = taproot?.chain ?? swapChain(refundable.currency);
  const destination = destinationOf(chain, options.destination, options.network);
  const { lockup, legacyType } = await findLockup(refundable, options);
  const spend = {
    lockup,
    destination,
    network: options.network,
    feeRate: options.feeRate ?? (await options.chain.feeRate()),
  };

  let cooperativeFailure: string | undefined;
  if (taproot && options.api !== undefined && options.cooperative !== false) {
    const { api } = options;
    const draft = chain.keyPathDraft(spend);
    try {
      const signature = await signTogether(taproot, draft.sighash, (pubNonce) =>
        (refundable.type === 'chain' ? api.chainRefund : api.submarineRefund)(refundable.id, { pubNonce, transaction: draft.unsignedHex, index: 0 }),
      );
      const built = draft.finish(signature);
      await options.chain.broadcast(built.hex);
      return { ...built, path: 'key', destination: options.destination };
    } catch (error) {
      cooperativeFailure = cooperationFailure(error);
    }
  }

  const height = await options.chain.height();
  if (height < refundable.timeoutBlockHeight) throw new RefundTooEarlyError(refundable.timeoutBlockHeight, height, cooperativeFailure);
  const { timeoutBlockHeight, privateKey } = refundable;
  const built = taproot
    ? chain.scriptPathRefund({ ...spend, tree: taproot.tree, internalKey: taproot.internalKey, privateKey, timeoutBlockHeight })
    : chain.legacyRefund !== undefined
      ? chain.legacyRefund({ ...spend, redeemScript: refundable.legacy!.redeemScript, privateKey, timeoutBlockHeight })
      : legacyRefund({
          output: lockup,
          outputType: legacyType!,
          redeemScript: refundable.legacy!.redeemScript,
          privateKey,
          timeoutBlockHeight,
          destination: spend.destination.script,
          feeRate: spend.feeRate,
        });
  await options.chain.broadcast(built.hex);
  return { ...built, path: 'script', destination: options.destination, cooperativeFailure };
}
