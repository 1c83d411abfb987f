// What every test wallet shares, whatever its chain or swap library: JSON over HTTP to Ferry's API, the v2
// WebSocket that follows swap statuses, fresh keys and preimages, and the checks of a creation answer that do not
// depend on the chain (the amounts, the invoice, the timeout). The chain-specific wallets build on it:
// swap-wallet.ts (Bitcoin, boltz-core 4.x) and liquid-swap-wallet.ts (Liquid, boltz-core 4.x or 2.x).
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { randomBytes } from '@noble/hashes/utils.js';
import { hex } from '@scure/base';
import WebSocket from 'ws';
import type { ReversePair, SubmarinePair } from '@ferry/sdk/client/types.js';
import { decodeBolt11 } from '@ferry/sdk/lightning/bolt11/index.js';
import { decodeInvoice as decodeBolt12Invoice } from '@ferry/sdk/lightning/bolt12/index.js';

// The pair shapes a wallet reads are the SDK's.
export type { ReversePair, SubmarinePair } from '@ferry/sdk/client/types.js';

export interface KeyPair {
  privateKey: Uint8Array;
  publicKey: Uint8Array; // 33 bytes, compressed
}

export function newKeyPair(): KeyPair {
  const privateKey = secp256k1.utils.randomSecretKey();
  return { privateKey, publicKey: secp256k1.getPublicKey(privateKey, true) };
}

export function newPreimage(): { preimage: Uint8Array; preimageHash: Uint8Array } {
  const preimage = randomBytes(32);
  return { preimage, preimageHash: sha256(preimage) };
}

export const equalBytes = (a: Uint8Array, b: Uint8Array): boolean => a.length === b.length && a.every((byte, i) => byte === b[i]);

/** A refusal from the service, kept whole so tests can assert on status and body. */
export class SwapApiError extends Error {
  constructor(
    readonly method: string,
    readonly path: string,
    readonly status: number,
    readonly body: any,
  ) {
    super(`${method} ${path} answered ${status}: ${JSON.stringify(body)}`);
  }
}

export interface ApiAnswer {
  status: number;
  body: any;
}

/** JSON over HTTP to Ferry's API. */
export class SwapApi {
  constructor(readonly url: string) {}

  async call(method: 'GET' | 'POST', path: string, body?: unknown): Promise<ApiAnswer> {
    const response = await fetch(this.url + path, {
      method,
      headers: body === undefined ? undefined : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, body: await response.json() };
  }

  /** Like call, but anything other than `status` throws SwapApiError. */
  async expect(method: 'GET' | 'POST', path: string, body: unknown, status: number): Promise<any> {
    const answer = await this.call(method, path, body);
    if (answer.status !== status) throw new SwapApiError(method, path, answer.status, answer.body);
    return answer.body;
  }

  /** POST /v2/chain/{symbol}/transaction: the answer as is (201 {id}, or 400 {error, ...}). */
  broadcast(symbol: string, txHex: string): Promise<ApiAnswer> {
    return this.call('POST', `/v2/chain/${symbol}/transaction`, { hex: txHex });
  }

  /** Broadcasts a transaction the wallet built; anything but 201 with its txid throws SwapApiError. */
  async broadcastOwn(symbol: string, txid: string, txHex: string): Promise<void> {
    const answer = await this.broadcast(symbol, txHex);
    if (answer.status !== 201 || answer.body.id !== txid) {
      throw new SwapApiError('POST', `/v2/chain/${symbol}/transaction`, answer.status, answer.body);
    }
  }
}

/** One `update` of the swap.update channel. */
export interface StatusUpdate {
  id: string;
  status: string;
  transaction?: { id: string; hex?: string; eta?: number };
  failureReason?: string;
  failureDetails?: { expected: number; actual: number };
  zeroConfRejected?: boolean;
}

/** The v2 WebSocket: subscribes to swaps and keeps every update it hears, in order, per swap. */
export class StatusSocket {
  private readonly updates = new Map<string, StatusUpdate[]>();
  private readonly waiters = new Set<() => void>();
  private readonly errors: unknown[] = [];

  private constructor(private readonly socket: WebSocket) {
    socket.on('message', (data) => {
      const message = JSON.parse(data.toString());
      if (message.event === 'update') {
        for (const update of message.args as StatusUpdate[]) {
          const list = this.updates.get(update.id) ?? [];
          // a subscribe snapshot may repeat the status a change already delivered
          if (list.at(-1)?.status !== update.status) list.push(update);
          this.updates.set(update.id, list);
        }
      } else if (message.event === 'error') {
        this.errors.push(message);
      }
      for (const wake of [...this.waiters]) wake();
    });
  }

  static open(apiUrl: string): Promise<StatusSocket> {
    const socket = new WebSocket(apiUrl.replace(/^http/, 'ws') + '/v2/ws');
    return new Promise((resolve, reject) => {
      socket.once('open', () => resolve(new StatusSocket(socket)));
      socket.once('error', reject);
    });
  }

  /** Subscribes to a swap the wallet created and checked; the swap, to go on with. */
  async follow<T extends { id: string }>(swap: T): Promise<T> {
    await this.subscribe(swap.id);
    return swap;
  }

  /** Subscribes and waits for the acknowledgement. */
  async subscribe(...ids: string[]): Promise<void> {
    const acked = new Promise<void>((resolve) => {
      const onAck = (data: WebSocket.RawData) => {
        const message = JSON.parse(data.toString());
        if (message.event === 'subscribe' && ids.every((id) => message.args.includes(id))) {
          this.socket.off('message', onAck);
          resolve();
        }
      };
      this.socket.on('message', onAck);
    });
    this.socket.send(JSON.stringify({ op: 'subscribe', channel: 'swap.update', args: ids }));
    await this.until(acked, 10_000, () => `no subscribe acknowledgement for ${ids.join(', ')}`);
  }

  history(id: string): StatusUpdate[] {
    return this.updates.get(id) ?? [];
  }

  statuses(id: string): string[] {
    return this.history(id).map((u) => u.status);
  }

  /**
   * The first update of swap `id` with one of `statuses`, heard before or after this call. The ceiling is a hang
   * guard: after ~1,440 Liquid blocks mined at once, Ferry's watcher handles each in turn, which took over 30 s at
   * load ~15 (docs/testing.md, Busy machines).
   */
  waitFor(id: string, statuses: string | string[], timeoutMs = 90_000): Promise<StatusUpdate> {
    const wanted = Array.isArray(statuses) ? statuses : [statuses];
    const found = () => this.history(id).find((u) => wanted.includes(u.status));
    const seen = found();
    if (seen) return Promise.resolve(seen);
    let wake!: () => void;
    const done = new Promise<StatusUpdate>((resolve) => {
      wake = () => {
        const update = found();
        if (update) resolve(update);
      };
      this.waiters.add(wake);
    });
    return this.until(done, timeoutMs, () => {
      return `swap ${id} never reached ${wanted.join(' | ')}; heard: ${JSON.stringify(this.statuses(id))}` +
        (this.errors.length ? `; socket errors: ${JSON.stringify(this.errors)}` : '');
    }).finally(() => this.waiters.delete(wake));
  }

  private async until<T>(promise: Promise<T>, timeoutMs: number, describe: () => string): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(describe())), timeoutMs);
    });
    try {
      return await Promise.race([promise, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  close(): void {
    this.socket.close();
  }
}

/** ceil(amount × percent / 100) in integers: percentages have at most 4 decimals. */
export function percentageFee(amount: number, percent: number): number {
  const ppm = BigInt(Math.round(percent * 10_000));
  return Number((BigInt(amount) * ppm + 999_999n) / 1_000_000n);
}

export function requireHexKey(value: unknown, what: string): Uint8Array {
  if (typeof value !== 'string' || !/^0[23][0-9a-f]{64}$/.test(value)) throw new Error(`${what} is not a compressed public key: ${value}`);
  return hex.decode(value);
}

/** The tree the service sent is, serialized, the one the wallet built from its own key, the service's and the hash. */
export function checkSerializedTree(received: unknown, built: unknown): void {
  if (JSON.stringify(received) !== JSON.stringify(built)) {
    throw new Error(`swap tree differs from the one built locally: ${JSON.stringify(received)} vs ${JSON.stringify(built)}`);
  }
}

/** The swap's timeout lies ahead of the chain tip. */
export function checkTimeout(timeoutBlockHeight: unknown, tip: number): number {
  if (!Number.isInteger(timeoutBlockHeight) || (timeoutBlockHeight as number) <= tip) {
    throw new Error(`timeoutBlockHeight ${timeoutBlockHeight} is not in the future (tip ${tip})`);
  }
  return timeoutBlockHeight as number;
}

/** What a submarine swap is created for: an invoice, or only the hash of the preimage a later invoice will pay. */
export type SubmarineRequest = { invoice: string } | { preimageHash: Uint8Array };

/** Creates a submarine swap from `from` to `to` with a fresh refund key: the answer, unchecked, and what it was asked for. */
export async function requestSubmarine(api: SwapApi, from: string, to: string, pairHash: string, request: SubmarineRequest) {
  const key = newKeyPair();
  const invoice = 'invoice' in request ? request.invoice : undefined;
  const preimageHash = invoice !== undefined ? hex.decode(invoiceTerms(invoice).paymentHash) : (request as { preimageHash: Uint8Array }).preimageHash;
  const target = invoice !== undefined ? { invoice } : { preimageHash: hex.encode(preimageHash) };
  const body = await api.expect('POST', '/v2/swap/submarine', { from, to, ...target, refundPublicKey: hex.encode(key.publicKey), pairHash }, 201);
  return { body, key, invoice, preimageHash };
}

/** Creates a reverse swap from `from` to `to` with a fresh claim key and preimage: the answer, unchecked, and both secrets. */
/** A reverse swap paid through the wallet's own invoice (BOLT12), made for the fresh preimage hash by `invoiceFor`. */
export async function requestReverseWithInvoice(api: SwapApi, pairHash: string, invoiceFor: (preimageHash: Uint8Array) => string) {
  const key = newKeyPair();
  const { preimage, preimageHash } = newPreimage();
  const invoice = invoiceFor(preimageHash);
  const request = { from: 'BTC', to: 'BTC', preimageHash: hex.encode(preimageHash), claimPublicKey: hex.encode(key.publicKey), pairHash, invoice };
  return { body: await api.expect('POST', '/v2/swap/reverse', request, 201), key, preimage };
}

export async function requestReverse(api: SwapApi, from: string, to: string, pairHash: string, invoiceAmount: number) {
  const key = newKeyPair();
  const { preimage, preimageHash } = newPreimage();
  const request = { from, to, invoiceAmount, preimageHash: hex.encode(preimageHash), claimPublicKey: hex.encode(key.publicKey), pairHash };
  return { body: await api.expect('POST', '/v2/swap/reverse', request, 201), key, preimage };
}

/**
 * The submarine answer asks for the invoice plus the pair's fees, and its BIP21 URI for that amount to `address`
 * (the formats of the amount differ: `amount=0.0005` from satToBtc is what both chains' URIs carry).
 */
export function checkSubmarineAmount(body: any, invoice: string, pair: SubmarinePair, address: string): number {
  const invoiceSat = Number(invoiceTerms(invoice).amountMsat! / 1000n);
  const expected = invoiceSat + percentageFee(invoiceSat, pair.fees.percentage) + pair.fees.minerFees;
  if (body.expectedAmount !== expected) throw new Error(`expectedAmount ${body.expectedAmount} is not invoice ${invoiceSat} + fees = ${expected}`);
  if (typeof body.bip21 !== 'string' || !body.bip21.includes(address) || !body.bip21.includes(`amount=${Number(expected) / 1e8}`)) {
    throw new Error(`bip21 ${body.bip21} does not ask for ${expected} sat to ${address}`);
  }
  return expected;
}

/**
 * The reverse answer's invoice is for our preimage hash and amount, payable to the service's node, and the
 * amount locked on chain is the invoice less the pair's fees.
 */
export async function checkReverseInvoice(api: SwapApi, body: any, preimageHash: Uint8Array, invoiceAmount: number, pair: ReversePair): Promise<void> {
  if (typeof body.id !== 'string') throw new Error(`no swap id: ${JSON.stringify(body)}`);
  const invoice = invoiceTerms(body.invoice);
  if (invoice.paymentHash !== hex.encode(preimageHash)) throw new Error(`the invoice's payment hash ${invoice.paymentHash} is not ours`);
  if (invoice.amountMsat !== BigInt(invoiceAmount) * 1000n) throw new Error(`the invoice asks for ${invoice.amountMsat} msat, not ${invoiceAmount} sat`);
  const nodes = await api.expect('GET', '/v2/nodes', undefined, 200);
  if (invoice.payeeNodeKey !== (nodes.BTC.LND ?? nodes.BTC.CLN).publicKey) throw new Error(`the invoice is payable to ${invoice.payeeNodeKey}, not the service's node`);
  const onchain = invoiceAmount - percentageFee(invoiceAmount, pair.fees.percentage) - pair.fees.minerFees.lockup;
  if (body.onchainAmount !== onchain) throw new Error(`onchainAmount ${body.onchainAmount} is not ${onchain}`);
}

/**
 * An invoice's terms, BOLT11 or BOLT12: hash, amount and the node it is paid to — for BOLT12 the node its first
 * path leads to (Ferry's, for an invoice Ferry holds), not the signer.
 */
function invoiceTerms(text: string): { paymentHash: string; amountMsat: bigint | undefined; payeeNodeKey: string } {
  if (!/^lni1/.test(text)) return decodeBolt11(text);
  const { invoice } = decodeBolt12Invoice(text);
  const first = invoice.paths![0].firstNode;
  return {
    paymentHash: hex.encode(invoice.paymentHash!),
    amountMsat: invoice.amountMsat,
    payeeNodeKey: hex.encode('nodeId' in first ? first.nodeId : invoice.nodeId!),
  };
}

/** The submarine claim the service asks the wallet to co-sign, checked: its preimage is that of the swap's hash. */
export async function submarineClaimRequest(
  api: SwapApi,
  id: string,
  preimageHash: Uint8Array,
  servicePublicKey: Uint8Array,
): Promise<{ preimage: Uint8Array; pubNonce: Uint8Array; transactionHash: Uint8Array }> {
  const details = await api.expect('GET', `/v2/swap/submarine/${id}/claim`, undefined, 200);
  const preimage = hex.decode(details.preimage);
  if (!equalBytes(sha256(preimage), preimageHash)) throw new Error('the service shows a preimage of another hash');
  if (details.publicKey !== hex.encode(servicePublicKey)) throw new Error(`claim key ${details.publicKey} is not the swap's`);
  return { preimage, pubNonce: hex.decode(details.pubNonce), transactionHash: hex.decode(details.transactionHash) };
}
