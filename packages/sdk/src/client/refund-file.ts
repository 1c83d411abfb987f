// Refund files (spec "Refund file"): JSON with id, currency, redeemScript, privateKey and timeoutBlockHeight,
// saved as a .json file and as a PNG QR code of the same JSON; read back from .json, .png, or raw JSON under
// any other name. Taproot swaps have no redeem script: their files carry the serialized `swapTree` and the
// service's public key (`serverPublicKey`, and `claimPublicKey` as the creation answer named it) instead,
// which is everything a script-path refund needs. Liquid swaps' files also carry `blindingKey` (hex), the private
// key that unblinds the lockup, under the name Boltz's web app gives it. Made and parsed here in memory, on any
// platform; files on disk are node/refund-files.ts's.
import { qrPng, readQrPng } from './qr/index.ts';
import { SWAP_CURRENCIES, swapChain } from './chains/index.ts';
import { fromHex, publicKeyFromHex } from './keys.ts';
import type { RefundableRecord } from './records.ts';
import type { SerializedSwapTree } from './types.ts';

export interface RefundFile {
  id: string;
  /** Chain swaps' files say so: their cooperative refund is asked at /v2/swap/chain. Default: submarine. */
  type?: 'submarine' | 'chain';
  currency: string;
  privateKey: string;
  timeoutBlockHeight: number;
  /** Legacy (P2WSH / P2SH-P2WSH) swaps. */
  redeemScript?: string;
  /** Taproot swaps. */
  swapTree?: SerializedSwapTree;
  serverPublicKey?: string;
  claimPublicKey?: string;
  /** Liquid swaps: the private key that unblinds the lockup. */
  blindingKey?: string;
}

export class RefundFileError extends Error {}

/** The refund file of our lockup: a record's, or the UTXO side of a chain swap with a contract side. */
export function refundFileOf(record: Pick<RefundableRecord, 'id' | 'type' | 'currency' | 'swapTree' | 'privateKey' | 'servicePublicKey' | 'timeoutBlockHeight' | 'blindingKey'>): RefundFile {
  return {
    id: record.id,
    ...(record.type === 'chain' && { type: 'chain' as const }),
    currency: record.currency,
    swapTree: record.swapTree,
    privateKey: record.privateKey,
    serverPublicKey: record.servicePublicKey,
    claimPublicKey: record.servicePublicKey,
    timeoutBlockHeight: record.timeoutBlockHeight,
    ...(record.blindingKey !== undefined && { blindingKey: record.blindingKey }),
  };
}

function leaf(value: unknown, name: string): void {
  const l = value as { version?: unknown; output?: unknown } | undefined;
  if (typeof l !== 'object' || l === null || !Number.isInteger(l.version) || typeof l.output !== 'string') {
    throw new RefundFileError(`swapTree.${name} is not a leaf {version, output}`);
  }
  fromHex(l.output, `swapTree.${name}.output`);
}

/** Checks a parsed refund file; throws RefundFileError naming the first problem. */
export function parseRefundFile(value: unknown): RefundFile {
  try {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new RefundFileError('a refund file is a JSON object');
    const raw = value as Record<string, unknown>;
    if (typeof raw.id !== 'string' || raw.id === '') throw new RefundFileError('no swap id');
    // Some clients name the chain `asset`.
    const currency = raw.currency ?? raw.asset;
    if (typeof currency !== 'string' || currency === '') throw new RefundFileError('no currency');
    fromHex(raw.privateKey, 'privateKey', 32);
    if (!Number.isSafeInteger(raw.timeoutBlockHeight) || (raw.timeoutBlockHeight as number) <= 0) {
      throw new RefundFileError('timeoutBlockHeight is not a positive integer');
    }
    const file: RefundFile = { id: raw.id, currency, privateKey: (raw.privateKey as string).toLowerCase(), timeoutBlockHeight: raw.timeoutBlockHeight as number };
    if (raw.type !== undefined) {
      if (raw.type !== 'submarine' && raw.type !== 'chain') throw new RefundFileError(`type is ${JSON.stringify(raw.type)}: only submarine and chain swaps are refunded`);
      file.type = raw.type;
    }
    if (raw.swapTree !== undefined) {
      const tree = raw.swapTree as Record<string, unknown>;
      if (typeof tree !== 'object' || tree === null) throw new RefundFileError('swapTree is not an object');
      leaf(tree.claimLeaf, 'claimLeaf');
      leaf(tree.refundLeaf, 'refundLeaf');
      file.swapTree = raw.swapTree as SerializedSwapTree;
      const serviceKey = raw.serverPublicKey ?? raw.claimPublicKey;
      if (serviceKey === undefined) throw new RefundFileError("a Taproot refund file needs the service's key (serverPublicKey or claimPublicKey)");
      publicKeyFromHex(serviceKey, 'serverPublicKey');
      if (raw.serverPublicKey !== undefined) file.serverPublicKey = raw.serverPublicKey as string;
      if (raw.claimPublicKey !== undefined) file.claimPublicKey = raw.claimPublicKey as string;
      if (file.serverPublicKey !== undefined && file.claimPublicKey !== undefined && file.serverPublicKey.toLowerCase() !== file.claimPublicKey.toLowerCase()) {
        throw new RefundFileError('serverPublicKey and claimPublicKey disagree');
      }
    } else if (raw.redeemScript !== undefined) {
      fromHex(raw.redeemScript, 'redeemScript');
      file.redeemScript = (raw.redeemScript as string).toLowerCase();
    } else {
      throw new RefundFileError('neither a swapTree nor a redeemScript: nothing to refund from');
    }
    // Taproot or legacy, a Liquid lockup is blinded.
    if (raw.blindingKey !== undefined) {
      fromHex(raw.blindingKey, 'blindingKey', 32);
      file.blindingKey = (raw.blindingKey as string).toLowerCase();
    } else if (SWAP_CURRENCIES.includes(currency) && swapChain(currency).confidential) {
      throw new RefundFileError(`a refund file of ${currency} needs the blindingKey that unblinds its lockup`);
    }
    return file;
  } catch (error) {
    if (error instanceof RefundFileError) throw error;
    throw new RefundFileError((error as Error).message);
  }
}

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47];

/** A refund file's content: a PNG (by extension or by its signature) is read through its QR code, anything else as JSON. */
export function parseRefundFileBytes(bytes: Uint8Array, name = ''): RefundFile {
  const isPng = /\.png$/i.test(name) || PNG_SIGNATURE.every((b, i) => bytes[i] === b);
  let text: string;
  if (isPng) {
    try {
      text = new TextDecoder('utf-8', { fatal: true }).decode(readQrPng(bytes));
    } catch (error) {
      throw new RefundFileError(`no readable refund QR code in ${name || 'the image'}: ${(error as Error).message}`);
    }
  } else {
    text = new TextDecoder().decode(bytes);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new RefundFileError(`${name || 'the refund file'} is not JSON: ${(error as Error).message}`);
  }
  return parseRefundFile(value);
}

export const refundFileJson = (file: RefundFile): string => JSON.stringify(file, null, 2) + '\n';

/** The PNG QR code of a refund file: compact JSON, error correction level M, 6 pixels per module for cameras. */
export const refundFilePng = (file: RefundFile): Uint8Array => qrPng(JSON.stringify(file), { level: 'M', pixelsPerModule: 6 });

/** A refund file as a Blob (JSON or PNG), e.g. for a browser's download link (URL.createObjectURL). */
export function refundFileBlob(file: RefundFile, format: 'json' | 'png'): Blob {
  return format === 'json' ? new Blob([refundFileJson(file)], { type: 'application/json' }) : new Blob([new Uint8Array(refundFilePng(file))], { type: 'image/png' });
}
