// What the chain swap tests share: one real Ferry with its in-process devnet (Bitcoin and Elements nodes that verify
// every transaction), the v2 API, mining, and the client's side of a BTC → L-BTC swap done by hand with the
// client's keys: locking, claiming Ferry's L-BTC through the claim leaf, and refunding its own BTC lockup either
// cooperatively (MuSig2 key path, Ferry's partial signature from POST .../refund) or alone through the refund leaf.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { Transaction } from 'liquidjs-lib';
import { startFerry, type Ferry } from '../../src/app.ts';
import { deserializeTree } from '@ferry/sdk/chains/bitcoin/htlc.js';
import { scriptOf } from '../../src/chains/bitcoin/network.ts';
import { findOutput, keyPathDraft, scriptPathRefund } from '@ferry/sdk/chains/bitcoin/spends.js';
import type { CoreRpcClient } from '@ferry/sdk/chains/core-rpc.js';
import { deserializeLiquidTree, liquidSwapOutputKey } from '@ferry/sdk/chains/liquid/htlc.js';
import { decodeAddress } from '@ferry/sdk/chains/liquid/network.js';
import { initLiquid } from '@ferry/sdk/chains/liquid/zkp.js';
import { scriptPathClaim } from '@ferry/sdk/chains/liquid/spends.js';
import { loadConfig, type FerryConfig } from '../../src/config/index.ts';
import type { ChainSwapData } from '../../src/engine/data.ts';
import { bitcoinSwapMusig, swapOutputKey } from '@ferry/sdk/keys/index.js';
import { silentLogger, type Logger } from '../../src/log/index.ts';
import { ephemeralPorts } from '../helpers/ports.ts';
import { DevnetChain } from '../swaps/scenarios/support/chain.ts';
import { LiquidChain } from '../swaps/scenarios/support/liquid-chain.ts';

/** What the client's side needs: Ferry's API and the user's wallets on both chains. */
export interface ClientSide {
  apiUrl: string;
  bitcoin: CoreRpcClient;
  bitcoinUser: CoreRpcClient;
  elements: CoreRpcClient;
  elementsUser: CoreRpcClient;
}

export interface ChainWorld extends ClientSide {
  ferry: Ferry;
  /** Ferry's data directory: what an operator points `ferry admin` at (FERRY_DATA_DIR). */
  dataDir: string;
  /** Each chain as a test observes it: mining to no wallet, balances, fees, which transactions spent what. */
  btc: DevnetChain;
  lbtc: LiquidChain;
  close(): Promise<void>;
}

/**
 * A Ferry with its devnet, watching quickly (the EVM chain too) and claiming alone one second after it learns the
 * preimage, unless `claimDelayMs` leaves the client longer to co-sign.
 */
export async function startChainWorld(
  name: string,
  options: { claimDelayMs?: number; feeBumpAfterBlocks?: number; configure?: (config: FerryConfig) => void; logger?: Logger } = {},
): Promise<ChainWorld> {
  const dataDir = mkdtempSync(join(tmpdir(), `ferry-${name}-`));
  const config = loadConfig({ env: { FERRY_DATA_DIR: dataDir, ...ephemeralPorts } });
  config.bitcoin.pollIntervalMs = 100;
  config.liquid.pollIntervalMs = 100;
  config.evm.pollIntervalMs = 100;
  config.swap.claimDelayMs = options.claimDelayMs ?? 1_000;
  if (options.feeBumpAfterBlocks !== undefined) config.swap.feeBumpAfterBlocks = options.feeBumpAfterBlocks;
  options.configure?.(config);
  const ferry = await startFerry(config, options.logger ?? silentLogger);
  const info = ferry.devnet!.info;
  const [btc, lbtc] = [new DevnetChain(info), new LiquidChain(info)];
  return {
    apiUrl: ferry.apiUrl,
    ferry,
    dataDir,
    btc,
    lbtc,
    bitcoin: btc.rpc,
    bitcoinUser: btc.user,
    elements: lbtc.rpc,
    elementsUser: lbtc.user,
    async close() {
      await ferry.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function api(client: ClientSide, method: 'GET' | 'POST', path: string, body?: unknown): Promise<{ status: number; json: any }> {
  const response = await fetch(client.apiUrl + path, {
    method,
    headers: { 'content-type': 'application/json' },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  return { status: response.status, json: await response.json() };
}

/** The swap's row once `test` holds for it (its status and data as Ferry stored them). */
export async function untilSwap(world: ChainWorld, id: string, test: (status: string, data: ChainSwapData) => boolean, what: string, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const swap = await world.ferry.storage.swaps.get(id);
    if (swap && test(swap.status, swap.data as ChainSwapData)) return swap.data as ChainSwapData;
    if (Date.now() > deadline) throw new Error(`swap ${id} is ${swap?.status}, never ${what}`);
    await sleep(100);
  }
}

/**
 * Waits until Ferry's watcher of `symbol` has handled every block its node has (each block's timeout check among
 * them): after mining hundreds of blocks at once that is work which scales with the machine's load, so it is waited
 * for as work, not under the ceiling of what follows it.
 */
export async function ferryFollowed(world: ChainWorld, symbol: 'BTC' | 'L-BTC'): Promise<void> {
  await world.ferry.chains.get(symbol)!.watcher.sync();
}

export const untilStatus = (world: ChainWorld, id: string, wanted: string, timeoutMs?: number) =>
  untilSwap(world, id, (status) => status === wanted, wanted, timeoutMs);

/** The client's view of a BTC → L-BTC swap it created over the API: its keys, its preimage, Ferry's answer. */
export interface ClientSwap {
  id: string;
  claimKey: Uint8Array;
  refundKey: Uint8Array;
  preimage: Buffer;
  claimDetails: { swapTree: any; lockupAddress: string; serverPublicKey: string; timeoutBlockHeight: number; amount: number; blindingKey: string };
  lockupDetails: { swapTree: any; lockupAddress: string; serverPublicKey: string; timeoutBlockHeight: number; amount: number };
}

/** A chain swap created over the API with fresh keys and preimage, priced on the user's or on Ferry's amount. */
export async function createChainSwap(
  client: ClientSide,
  from: string,
  to: string,
  amount: { userLockAmount: number } | { serverLockAmount: number },
): Promise<ClientSwap> {
  const claimKey = secp256k1.utils.randomSecretKey();
  const refundKey = secp256k1.utils.randomSecretKey();
  const preimage = randomBytes(32);
  const created = await api(client, 'POST', '/v2/swap/chain', {
    from,
    to,
    preimageHash: Buffer.from(sha256(preimage)).toString('hex'),
    claimPublicKey: Buffer.from(secp256k1.getPublicKey(claimKey, true)).toString('hex'),
    refundPublicKey: Buffer.from(secp256k1.getPublicKey(refundKey, true)).toString('hex'),
    ...amount,
  });
  assert.equal(created.status, 201, JSON.stringify(created.json));
  return { id: created.json.id, claimKey, refundKey, preimage, claimDetails: created.json.claimDetails, lockupDetails: created.json.lockupDetails };
}

export const createBtcToLbtc = (client: ClientSide, userLockAmount: number): Promise<ClientSwap> => createChainSwap(client, 'BTC', 'L-BTC', { userLockAmount });

/** The client pays its BTC lockup (unconfirmed); the lockup's outpoint. */
export async function lockBtc(client: ClientSide, swap: ClientSwap, amount = swap.lockupDetails.amount): Promise<{ txid: string; vout: number }> {
  const txid = await client.bitcoinUser.sendToAddress(swap.lockupDetails.lockupAddress, amount / 1e8);
  const output = findOutput(await client.bitcoin.getRawTransactionHex(txid), scriptOf('regtest', swap.lockupDetails.lockupAddress))!;
  return { txid, vout: output.vout };
}

/** A random MuSig2 public nonce: enough for a request that must be refused before any signing. */
export const anyNonce = () => Buffer.concat([secp256k1.getPublicKey(randomBytes(32), true), secp256k1.getPublicKey(randomBytes(32), true)]).toString('hex');

/**
 * The client's cooperative refund of its BTC lockup to a fresh address of the user wallet: Ferry's answer to POST
 * .../refund, and when it signed, the finished transaction (not broadcast).
 */
export async function cooperativeRefund(client: ClientSide, swap: ClientSwap, lockupTxid: string) {
  const serverPublicKey = Buffer.from(swap.lockupDetails.serverPublicKey, 'hex');
  const tree = deserializeTree(swap.lockupDetails.swapTree);
  const output = findOutput(await client.bitcoin.getRawTransactionHex(lockupTxid), scriptOf('regtest', swap.lockupDetails.lockupAddress))!;
  const draft = keyPathDraft({ output, destination: scriptOf('regtest', await client.bitcoinUser.getNewAddress()), feeRate: 2 });
  const ours = bitcoinSwapMusig(swap.refundKey, [serverPublicKey, secp256k1.getPublicKey(swap.refundKey, true)], tree).message(draft.sighash).generateNonce();
  const answer = await api(client, 'POST', `/v2/swap/chain/${swap.id}/refund`, {
    pubNonce: Buffer.from(ours.publicNonce).toString('hex'),
    transaction: draft.unsignedHex,
    index: 0,
  });
  if (answer.status !== 200) return { answer };
  const signature = ours
    .aggregateNonces([[serverPublicKey, Buffer.from(answer.json.pubNonce, 'hex')]])
    .initializeSession()
    .signPartial()
    .addPartial(serverPublicKey, Buffer.from(answer.json.partialSignature, 'hex'))
    .aggregatePartials();
  return { answer, refund: draft.finish(signature) };
}

/** The client's refund of its BTC lockup through the refund leaf, alone: nLockTime = the lockup's timeout. */
export async function scriptPathRefundOf(client: ClientSide, swap: ClientSwap, lockupTxid: string) {
  const tree = deserializeTree(swap.lockupDetails.swapTree);
  const refundPublicKey = secp256k1.getPublicKey(swap.refundKey, true);
  const { internalKey } = swapOutputKey(Buffer.from(swap.lockupDetails.serverPublicKey, 'hex'), refundPublicKey, tree);
  const output = findOutput(await client.bitcoin.getRawTransactionHex(lockupTxid), scriptOf('regtest', swap.lockupDetails.lockupAddress))!;
  return scriptPathRefund({
    output,
    tree,
    internalKey,
    privateKey: swap.refundKey,
    destination: scriptOf('regtest', await client.bitcoinUser.getNewAddress()),
    feeRate: 2,
    timeoutBlockHeight: swap.lockupDetails.timeoutBlockHeight,
  });
}

/** The client's claim of Ferry's L-BTC lockup through the claim leaf, revealing the preimage (not broadcast). */
export async function scriptPathClaimOf(client: ClientSide, swap: ClientSwap, serverLockupTxid: string) {
  await initLiquid(); // unblinding needs secp256k1-zkp, loaded already when Ferry runs in this process
  const lockupTx = Transaction.fromHex(await client.elements.getRawTransactionHex(serverLockupTxid));
  const tree = deserializeLiquidTree(swap.claimDetails.swapTree);
  const key = liquidSwapOutputKey(Buffer.from(swap.claimDetails.serverPublicKey, 'hex'), secp256k1.getPublicKey(swap.claimKey, true), tree);
  const vout = lockupTx.outs.findIndex((out) => Buffer.from(out.script).equals(Buffer.from(key.outputScript)));
  assert.ok(vout >= 0, 'the transaction pays the lockup');
  return scriptPathClaim({
    lockup: { txid: serverLockupTxid, vout, prevout: lockupTx.outs[vout], blindingPrivateKey: Buffer.from(swap.claimDetails.blindingKey, 'hex') },
    tree,
    internalKey: key.internalKey,
    privateKey: swap.claimKey,
    preimage: swap.preimage,
    destination: decodeAddress(await client.elementsUser.getNewAddress(), 'regtest'),
    feeRate: 0.1,
    network: 'regtest',
  });
}
