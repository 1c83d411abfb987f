// Transport-level test harness for the swap API: a SwapService that only stores statuses in a Map and records
// what reached it (enough to test framing, validation and fan-out, which do not depend on swap semantics), plus
// a real API server on an ephemeral port and a WebSocket client that queues what it receives.
import { get, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import WebSocket from 'ws';
import { createApiServer, type ApiDependencies } from '../../src/api/index.ts';
import { listen } from '../../src/api/http/server.ts';
import {
  SwapError,
  type ChainClaimRequest,
  type CreateChainRequest,
  type CreateChainResponse,
  type CovenantRegistration,
  type CreateReverseRequest,
  type CreateSubmarineRequest,
  type PartialSignatureBody,
  type SwapService,
  type SwapStatusBody,
} from '@ferry/sdk/protocol/index.js';
import { StatusFeed } from '../../src/events/index.ts';
import { createLogger } from '../../src/log/index.ts';

const tree = { claimLeaf: { version: 192, output: 'aa' }, refundLeaf: { version: 192, output: 'bb' } };

/** A well-formed swap id: 12 characters of the id alphabet. */
export const swapId = (n: number) => `Swap${String(n).padStart(8, 'a').replace(/0/g, 'z')}`;

export class MemorySwaps implements SwapService {
  readonly statuses = new Map<string, SwapStatusBody>();
  readonly calls: { method: string; args: unknown[] }[] = [];
  /** When set, every call throws it (to test how the API maps engine errors). */
  failure?: Error;
  /** When set, status() reads, then waits for it before answering: a read that races with a change. */
  statusGate?: Promise<void>;
  private readonly listeners = new Set<(id: string, status: SwapStatusBody) => void>();

  setStatus(id: string, status: SwapStatusBody): void {
    this.statuses.set(id, status);
    for (const listener of this.listeners) listener(id, status);
  }

  onStatus(listener: (id: string, status: SwapStatusBody) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  get listenerCount(): number {
    return this.listeners.size;
  }

  async status(id: string): Promise<SwapStatusBody | undefined> {
    this.record('status', id);
    const status = this.statuses.get(id);
    await this.statusGate;
    return status;
  }

  async submarinePairs() {
    this.record('submarinePairs');
    return { BTC: { BTC: { hash: 'ab', rate: 1, limits: { maximal: 2, minimal: 1, maximalZeroConf: 0 }, fees: { percentage: 0.1, minerFees: 1 } } } };
  }
  async reversePairs() {
    this.record('reversePairs');
    return { BTC: { BTC: { hash: 'cd', rate: 1, limits: { maximal: 2, minimal: 1 }, fees: { percentage: 0.5, minerFees: { lockup: 1, claim: 1 } } } } };
  }
  /** Like the engine: no chain pairs (Ferry has no chain swaps yet). */
  async chainPairs() {
    this.record('chainPairs');
    return {};
  }
  async createSubmarine(request: CreateSubmarineRequest) {
    this.record('createSubmarine', request);
    const id = swapId(this.statuses.size + 1);
    this.setStatus(id, { status: request.invoice ? 'invoice.set' : 'swap.created' });
    return { id, address: 'bcrt1p', swapTree: tree, claimPublicKey: '02'.padEnd(66, '1'), timeoutBlockHeight: 100 };
  }
  async setSubmarineInvoice(id: string, invoice: string, pairHash?: string) {
    this.known('setSubmarineInvoice', id, invoice, pairHash);
    return { bip21: 'bitcoin:x', expectedAmount: 1, acceptZeroConf: false };
  }
  async submarineInvoiceAmount(id: string) {
    this.known('submarineInvoiceAmount', id);
    return { invoiceAmount: 1 };
  }
  async submarineTransaction(id: string) {
    this.known('submarineTransaction', id);
    return { id: 'ff'.repeat(32), hex: '00', timeoutBlockHeight: 100 };
  }
  async submarinePreimage(id: string) {
    this.known('submarinePreimage', id);
    return { preimage: '11'.repeat(32) };
  }
  async submarineClaimDetails(id: string) {
    this.known('submarineClaimDetails', id);
    return { preimage: '11'.repeat(32), pubNonce: '22'.repeat(66), publicKey: '33'.repeat(33), transactionHash: '44'.repeat(32) };
  }
  async submarineClaimSignature(id: string, signature: { pubNonce: string; partialSignature: string }) {
    this.known('submarineClaimSignature', id, signature);
    return {};
  }
  async submarineRefund(id: string, request: { pubNonce: string; transaction: string; index: number }) {
    this.known('submarineRefund', id, request);
    return { pubNonce: '55'.repeat(66), partialSignature: '66'.repeat(32) };
  }
  async submarineRefundSignature(id: string) {
    this.known('submarineRefundSignature', id);
    return { signature: `0x${'77'.repeat(65)}` };
  }
  async createReverse(request: CreateReverseRequest) {
    this.record('createReverse', request);
    const id = swapId(this.statuses.size + 1);
    this.setStatus(id, { status: 'swap.created' });
    return { id, invoice: 'lnbcrt1', swapTree: tree, lockupAddress: 'bcrt1p', refundPublicKey: '03'.padEnd(66, '1'), timeoutBlockHeight: 100, onchainAmount: 1 };
  }
  async reverseTransaction(id: string) {
    this.known('reverseTransaction', id);
    return { id: 'ee'.repeat(32), hex: '00', timeoutBlockHeight: 100 };
  }
  async reverseClaim(
    id: string,
    request: { preimage: string; pubNonce?: string; transaction?: string; index?: number },
  ): Promise<PartialSignatureBody | Record<string, never>> {
    this.known('reverseClaim', id, request);
    return request.pubNonce ? { pubNonce: '77'.repeat(66), partialSignature: '88'.repeat(32) } : {};
  }
  async registerCovenant(request: CovenantRegistration): Promise<Record<string, never>> {
    this.record('registerCovenant', request);
    return {};
  }

  async createChain(request: CreateChainRequest): Promise<CreateChainResponse> {
    this.record('createChain', request);
    const id = swapId(this.statuses.size + 1);
    this.setStatus(id, { status: 'swap.created' });
    const side = { swapTree: tree, lockupAddress: 'bcrt1p', serverPublicKey: '03'.padEnd(66, '1'), timeoutBlockHeight: 100, amount: 1 };
    return { id, claimDetails: side, lockupDetails: { ...side, bip21: 'bitcoin:bcrt1p' } };
  }
  async chainClaimDetails(id: string) {
    this.known('chainClaimDetails', id);
    return { pubNonce: '77'.repeat(66), publicKey: '03'.padEnd(66, '1'), transactionHash: '99'.repeat(32) };
  }
  async chainQuote(id: string) {
    this.known('chainQuote', id);
    return { amount: 1 };
  }
  async acceptChainQuote(id: string, amount: number) {
    this.known('acceptChainQuote', id, amount);
    return {};
  }
  async chainTransactions(id: string) {
    this.known('chainTransactions', id);
    return {};
  }
  async chainClaim(id: string, request: ChainClaimRequest): Promise<PartialSignatureBody | Record<string, never>> {
    this.known('chainClaim', id, request);
    return request.toSign ? { pubNonce: '77'.repeat(66), partialSignature: '88'.repeat(32) } : {};
  }
  async chainRefundSignature(id: string) {
    this.known('chainRefundSignature', id);
    return { signature: `0x${'77'.repeat(65)}` };
  }
  async chainRefund(id: string, request: { pubNonce: string; transaction: string; index: number }) {
    this.known('chainRefund', id, request);
    return { pubNonce: '55'.repeat(66), partialSignature: '66'.repeat(32) };
  }

  private record(method: string, ...args: unknown[]): void {
    this.calls.push({ method, args });
    if (this.failure) throw this.failure;
  }

  private known(method: string, id: string, ...args: unknown[]): void {
    this.record(method, id, ...args);
    if (!this.statuses.has(id)) throw new SwapError('notFound', `could not find swap with id: ${id}`);
  }
}

export interface TestApi {
  url: string;
  wsUrl: string;
  port: number;
  feed: StatusFeed;
  errors: string[]; // error log lines: a 500 or a crashed handler shows up here
  close(): Promise<void>;
}

export async function startApi(swaps: SwapService, options: Partial<ApiDependencies> = {}): Promise<TestApi> {
  const errors: string[] = [];
  const logger = createLogger({ level: 'error', json: true, write: (line) => errors.push(line) });
  const feed = new StatusFeed((error) => errors.push(String(error)));
  const disconnect = feed.connect(swaps);
  const server = createApiServer({
    chains: new Map(),
    lightning: {},
    logger,
    maxBodyBytes: 16 * 1024,
    swaps,
    statusFeed: feed,
    ...options,
  });
  const { port } = (await listen(server, 0, '127.0.0.1')) as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    wsUrl: `ws://127.0.0.1:${port}/v2/ws`,
    port,
    feed,
    errors,
    close: () =>
      new Promise<void>((resolve) => {
        disconnect();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

export async function call(api: TestApi, method: string, path: string, body?: unknown): Promise<{ status: number; json: any }> {
  const response = await fetch(api.url + path, {
    method,
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
  });
  const text = await response.text();
  return { status: response.status, json: JSON.parse(text) };
}

/** A WebSocket client whose received messages wait in a queue. */
export class TestSocket {
  private readonly received: any[] = [];
  private readonly waiting: ((message: any) => void)[] = [];
  readonly closed: Promise<{ code: number }>;

  private constructor(readonly ws: WebSocket) {
    ws.on('message', (data) => {
      const message = JSON.parse(data.toString());
      const waiter = this.waiting.shift();
      if (waiter) waiter(message);
      else this.received.push(message);
    });
    this.closed = new Promise((resolve) => ws.on('close', (code) => resolve({ code })));
  }

  static async open(url: string): Promise<TestSocket> {
    const ws = new WebSocket(url);
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    return new TestSocket(ws);
  }

  send(message: unknown): void {
    this.ws.send(typeof message === 'string' ? message : JSON.stringify(message));
  }

  next(timeoutMs = 2000): Promise<any> {
    const queued = this.received.shift();
    if (queued !== undefined) return Promise.resolve(queued);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting.splice(this.waiting.indexOf(waiter), 1);
        reject(new Error('no message within ' + timeoutMs + ' ms'));
      }, timeoutMs);
      const waiter = (message: any) => {
        clearTimeout(timer);
        resolve(message);
      };
      this.waiting.push(waiter);
    });
  }

  /** Sends a message and returns the first answer. */
  async ask(message: unknown): Promise<any> {
    this.send(message);
    return this.next();
  }

  /** Asserts that nothing arrives for a while: a round trip of ping/pong proves the server got this far. */
  async nothingPending(): Promise<void> {
    const answer = await this.ask({ op: 'ping' });
    if (answer.event !== 'pong') throw new Error('unexpected message: ' + JSON.stringify(answer));
  }

  close(): void {
    this.ws.close();
  }
}

/** An open stream whose raw text accumulates; `until` waits for a pattern. */
export async function openStream(url: string) {
  const response = await new Promise<IncomingMessage>((resolve, reject) => get(url, resolve).on('error', reject));
  let text = '';
  const waiters: (() => void)[] = [];
  response.on('data', (chunk) => {
    text += chunk.toString();
    for (const waiter of waiters.splice(0)) waiter();
  });
  const until = async (pattern: RegExp, timeoutMs = 2000) => {
    const deadline = Date.now() + timeoutMs;
    while (!pattern.test(text)) {
      if (Date.now() > deadline) throw new Error(`stream never matched ${pattern}: ${JSON.stringify(text)}`);
      await new Promise<void>((resolve) => {
        waiters.push(resolve);
        setTimeout(resolve, 50);
      });
    }
  };
  const events = () =>
    text
      .split('\n\n')
      .filter((block) => block.startsWith('data: '))
      .map((block) => JSON.parse(block.slice('data: '.length)));
  return { response, until, events, text: () => text, close: () => response.destroy() };
}

/**
 * A pass-through view of a real service that records which methods were called: lets a test assert that
 * refused input never reached the engine, without replacing the engine.
 */
export function recording<T extends object>(target: T): { service: T; calls: { method: string; args: unknown[] }[] } {
  const calls: { method: string; args: unknown[] }[] = [];
  const service = new Proxy(target, {
    get(object, property) {
      const value = Reflect.get(object, property, object);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        calls.push({ method: String(property), args });
        return value.apply(object, args);
      };
    },
  });
  return { service, calls };
}
