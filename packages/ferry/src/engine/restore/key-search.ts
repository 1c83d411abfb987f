// The client keys a restore searches by: an xpub's children (derived at derivationPath/index and scanned with a gap
// limit, as the reference does), one public key or a list. Lookups go through the client key index in batches, so
// a search costs one indexed query per window of keys, never a scan of the swaps.
import { createHmac } from 'node:crypto';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { HDKey } from '@scure/bip32';
import { invalid, invalidParameter } from '@ferry/sdk/protocol/errors.js';
import type { RescueRequest } from '@ferry/sdk/protocol/wire.js';

export const DEFAULT_DERIVATION_PATH = 'm/44/0/0/0';
export const DEFAULT_GAP_LIMIT = 50;
export const MAX_GAP_LIMIT = 150;
export const MAX_PAGE = 1000;
/** A public key list longer than this is refused (the same bound as an xpub page). */
export const MAX_PUBLIC_KEYS = 1000;
/**
 * However long a wallet's history, an xpub scan stops here: it bounds what one request can cost (a derivation is
 * ~0.4 ms of CPU, and swaps every gapLimit indices are free to make with reverse swaps nobody pays).
 */
export const MAX_SCANNED_INDICES = 10_000;

// xpub/xprv and tpub/tprv: wallets send mainnet versions even on regtest (the reference's web app does).
const VERSIONS = [
  { private: 0x0488ade4, public: 0x0488b21e },
  { private: 0x04358394, public: 0x043587cf },
];

/** A key that matched, with its derivation index (or position in the given list). */
export interface KeyMatch<T> {
  index: number;
  publicKey: string;
  found: T;
}

/** Looks up many keys at once; answers one entry per (key, item) found. */
export type KeyLookup<T> = (publicKeys: string[]) => Promise<{ publicKey: string; found: T }[]>;

/** Parses an extended public key; a private one is refused without echoing it (it is a secret sent by mistake). */
export function parseXpub(text: string): HDKey {
  if (text.length > 200) throw invalidParameter('xpub');
  for (const versions of VERSIONS) {
    let key: HDKey;
    try {
      key = HDKey.fromExtendedKey(text, versions);
    } catch {
      continue;
    }
    if (key.privateKey) throw invalid('invalid parameter: xpub: an extended private key was sent; send its public key (xpub) only');
    return key;
  }
  throw invalidParameter('xpub');
}

/** m/a/b/c with unhardened indices only: an xpub cannot derive hardened children. */
export function parseDerivationPath(path: string): string {
  const parts = path.split('/');
  const ok =
    path.length <= 100 &&
    parts[0] === 'm' &&
    parts.slice(1).every((part) => /^\d{1,10}$/.test(part) && Number(part) < 2 ** 31);
  if (!ok) throw invalid('invalid parameter: derivationPath: an unhardened path such as m/44/0/0/0');
  return path;
}

/**
 * BIP32 public children (CKDpub) of one account: its point is decompressed once and each child is that point plus
 * IL·G, with the HMAC done natively — a few times faster than deriving each child as an HDKey, which is what a
 * restore spends its time on.
 */
export class ChildKeys {
  private readonly point: InstanceType<typeof secp256k1.Point>;
  private readonly publicKey: Uint8Array;
  private readonly chainCode: Uint8Array;

  constructor(account: HDKey) {
    this.publicKey = account.publicKey!;
    this.chainCode = account.chainCode!;
    this.point = secp256k1.Point.fromBytes(this.publicKey);
  }

  /** The child's compressed public key in hex; undefined for the (astronomically rare) invalid index BIP32 skips. */
  at(index: number): string | undefined {
    const data = Buffer.alloc(37);
    data.set(this.publicKey);
    data.writeUInt32BE(index, 33);
    const tweak = BigInt('0x' + createHmac('sha512', this.chainCode).update(data).digest().subarray(0, 32).toString('hex'));
    if (tweak === 0n || tweak >= secp256k1.Point.Fn.ORDER) return undefined;
    const child = this.point.add(secp256k1.Point.BASE.multiply(tweak));
    return child.is0() ? undefined : child.toHex(true);
  }
}

/** The matches, and the index of every key searched (a chain swap's other key is found there). */
export interface KeySearch<T> {
  matches: KeyMatch<T>[];
  indexOf: Map<string, number>;
}

async function lookupRange<T>(account: ChildKeys, start: number, count: number, lookup: KeyLookup<T>, indexOf: Map<string, number>): Promise<KeyMatch<T>[]> {
  const keys: string[] = [];
  for (let index = start; index < start + count && index < 2 ** 31; index++) {
    const key = account.at(index);
    if (key === undefined) continue;
    indexOf.set(key, index);
    keys.push(key);
  }
  return (await lookup(keys)).map(({ publicKey, found }) => ({ index: indexOf.get(publicKey)!, publicKey, found }));
}

/**
 * Every match of the request's keys. An xpub is scanned window by window of gapLimit keys until gapLimit indices
 * in a row matched nothing (or exactly its page); a list keeps its order as the index.
 */
export async function searchKeys<T>(request: RescueRequest, lookup: KeyLookup<T>): Promise<KeySearch<T>> {
  const indexOf = new Map<string, number>();
  if ('xpub' in request) {
    const account = new ChildKeys(parseXpub(request.xpub).derive(parseDerivationPath(request.derivationPath ?? DEFAULT_DERIVATION_PATH)));
    if (request.pagination !== undefined) {
      const { startIndex, limit } = request.pagination;
      return { matches: await lookupRange(account, startIndex, limit, lookup, indexOf), indexOf };
    }
    const gap = request.gapLimit ?? DEFAULT_GAP_LIMIT;
    const matches: KeyMatch<T>[] = [];
    let lastUsed = -1;
    for (let start = 0; start < MAX_SCANNED_INDICES; start += gap) {
      const found = await lookupRange(account, start, gap, lookup, indexOf);
      matches.push(...found);
      for (const match of found) lastUsed = Math.max(lastUsed, match.index);
      if (start + gap - 1 - lastUsed >= gap) break;
      // Derivation is CPU work: let other requests in between windows.
      await new Promise((resolve) => setImmediate(resolve));
    }
    return { matches, indexOf };
  }
  const keys = 'publicKey' in request ? [request.publicKey] : request.publicKeys;
  keys.forEach((key, i) => indexOf.has(key.toLowerCase()) || indexOf.set(key.toLowerCase(), i));
  const found = await lookup([...indexOf.keys()]);
  return { matches: found.map(({ publicKey, found }) => ({ index: indexOf.get(publicKey)!, publicKey, found })), indexOf };
}
