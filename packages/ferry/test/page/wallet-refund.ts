// What the RBTC refund-view tests check of every refund the page had the wallet send: the page says it refunded,
// the transaction went from the wallet's account to the EtherSwap contract, calls the method named with the lock's
// values, and the account holds the locked value back less the refund's gas.
import assert from 'node:assert/strict';
import { Interface, getAddress } from 'ethers';
import type { Page } from 'playwright-core';
import type { RbtcWorld } from './rbtc-world.ts';

/** What the refund transactions call: told apart by their data. */
const REFUND_CALLS = new Interface([
  'function refundCooperative(bytes32 preimageHash, uint256 amount, address claimAddress, uint256 timelock, uint8 v, bytes32 r, bytes32 s)',
  'function refund(bytes32 preimageHash, uint256 amount, address claimAddress, uint256 timelock)',
]);

/** A lock the wallet made: its values as the page showed them. */
export interface WalletLock {
  id: string;
  /** The wallet's lock transaction. */
  lockHash: string;
  preimageHash: string;
  value: bigint;
  claimAddress: string;
  timelock: number;
}

/** Waits for the page's answer and checks the refund it sent; what the page said, the refund's hash and its gas. */
export async function walletRefundSent(
  world: RbtcWorld,
  page: Page,
  locked: WalletLock,
  method: 'refundCooperative' | 'refund',
  balanceBefore: bigint,
): Promise<{ said: string; txHash: string; gas: bigint }> {
  const { provider, account, service } = world;
  await page.locator('#refund-tx-line:not([hidden]), #refund-result.bad').first().waitFor();
  const said = (await page.locator('#refund-result').textContent())!;
  assert.equal(await page.locator('#refund-tx-line').isVisible(), true, `the page refunded: ${said}`);
  const txHash = (await page.locator('#refund-txid').textContent())!.trim();
  const tx = (await provider.getTransaction(txHash))!;
  const receipt = (await provider.getTransactionReceipt(txHash))!;
  assert.equal(receipt.status, 1);
  assert.equal(getAddress(receipt.from), account, 'sent by the wallet’s account');
  assert.equal(getAddress(receipt.to!), getAddress(service.info.evm.contracts.etherSwap));
  const parsed = REFUND_CALLS.parseTransaction({ data: tx.data })!;
  assert.equal(parsed.name, method);
  assert.equal(parsed.args.preimageHash, `0x${locked.preimageHash}`);
  assert.equal(parsed.args.amount, locked.value);
  const gas = receipt.gasUsed * receipt.gasPrice;
  assert.equal(await provider.getBalance(account), balanceBefore + locked.value - gas, 'the locked value back, less the refund’s gas');
  return { said, txHash, gas };
}
