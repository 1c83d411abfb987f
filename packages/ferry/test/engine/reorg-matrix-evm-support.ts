// What the RBTC reorg matrix tests share (reorg-matrix-evm*.test.ts): a real Ferry with its devnet, the user's EVM
// account, alice paying hold invoices, and the moves of a reorg on anvil — evm_snapshot, evm_revert and other blocks
// mined at the same heights, then Ferry's follower synced — plus the contract's events of a preimage hash.
import { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { toQuantity, type EventLog } from 'ethers';
import { LndRestClient } from '../../src/lightning/index.ts';
import { api, sleep, startChainWorld, type ChainWorld } from './chain-support.ts';
import { EvmUser, WEI_PER_UNIT, type LockValues } from './evm-chain-support.ts';

let world: ChainWorld;
let evm: EvmUser;
let alice: LndRestClient;

/** Starts the world before the file's tests and closes it after; the world and the user's EVM side. */
export function useEvmReorgWorld(name: string): { world: () => ChainWorld; evm: () => EvmUser } {
  before(async () => {
    world = await startChainWorld(name);
    evm = new EvmUser(world);
    const { restUrl, macaroon } = world.ferry.devnet!.info.lightning.alice;
    alice = new LndRestClient({ url: restUrl, macaroon });
  });
  after(async () => {
    await world?.close();
  });
  return { world: () => world, evm: () => evm };
}

export const hexOf = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');
export const provider = () => world.ferry.devnet!.evm.provider;
export const snapshot = (): Promise<string> => provider().send('evm_snapshot', []);
export const status = async (id: string) => (await world.ferry.storage.swaps.get(id))!.status;
export const effectsOf = async (id: string, kind: string) => (await world.ferry.storage.effects.listForSwap(id)).filter((effect) => effect.kind === kind);

/** Takes the chain back to the snapshot and mines past the lost tip, so Ferry's follower sees other blocks there. */
export async function reorgTo(id: string, lostTip: number): Promise<void> {
  assert.equal(await provider().send('evm_revert', [id]), true);
  await provider().send('anvil_mine', [toQuantity(lostTip - (await provider().getBlockNumber()) + 2)]);
  await evm.ferry.follower.sync();
}

export async function until(check: () => Promise<boolean>, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`never ${what}`);
    await sleep(100);
  }
}

export const lockupsOf = async (values: LockValues) => (await evm.etherSwap.queryFilter(evm.etherSwap.filters.Lockup(values.preimageHash))) as EventLog[];
export const refundsOf = async (values: LockValues) => (await evm.etherSwap.queryFilter(evm.etherSwap.filters.Refund(values.preimageHash))) as EventLog[];
export const claimsOf = async (values: LockValues) => (await evm.etherSwap.queryFilter(evm.etherSwap.filters.Claim(values.preimageHash))) as EventLog[];

/** A reverse swap BTC → RBTC for the user's address with alice paying; resolves once Ferry's lock is mined. */
export async function lockedReverse(invoiceAmount: number) {
  const preimage = randomBytes(32);
  const created = await api(world, 'POST', '/v2/swap/reverse', { from: 'BTC', to: 'RBTC', preimageHash: hexOf(sha256(preimage)), claimAddress: evm.wallet.address, invoiceAmount });
  assert.equal(created.status, 201, JSON.stringify(created.json));
  const { id, invoice, onchainAmount, refundAddress, timeoutBlockHeight } = created.json;
  const values: LockValues = { preimageHash: `0x${hexOf(sha256(preimage))}`, amount: BigInt(onchainAmount) * WEI_PER_UNIT, claimAddress: evm.wallet.address, refundAddress, timelock: timeoutBlockHeight };
  return { id: id as string, preimage, values, pay: () => alice.payInvoice({ paymentRequest: invoice, feeLimitMsat: 10_000n, timeoutSeconds: 60 }) };
}

/** A chain swap BTC → RBTC for the user's address, created over the API; the values Ferry's lock will have. */
export async function createBtcToRbtc(userLockAmount: number) {
  const preimage = randomBytes(32);
  const refundKey = secp256k1.utils.randomSecretKey();
  const created = await api(world, 'POST', '/v2/swap/chain', {
    from: 'BTC',
    to: 'RBTC',
    preimageHash: hexOf(sha256(preimage)),
    claimAddress: evm.wallet.address,
    refundPublicKey: hexOf(secp256k1.getPublicKey(refundKey, true)),
    userLockAmount,
  });
  assert.equal(created.status, 201, JSON.stringify(created.json));
  const { id, claimDetails, lockupDetails } = created.json;
  const values: LockValues = {
    preimageHash: `0x${hexOf(sha256(preimage))}`,
    amount: BigInt(claimDetails.amount) * WEI_PER_UNIT,
    claimAddress: claimDetails.claimAddress,
    refundAddress: claimDetails.refundAddress,
    timelock: claimDetails.timeoutBlockHeight,
  };
  return { id: id as string, preimage, values, lockupDetails };
}

