/// <reference lib="dom" />
// The wallet's lock in the swap contract, as the page shows it and has the wallet send it: the same view
// (view-pay-contract) and button for an RBTC submarine swap (evm-wallet.ts) and for a chain swap out of RBTC
// (evm-chain-swap.ts). The swap is stored before the button can be pressed; a refused or failed send leaves it stored
// and the button asks again.
import type { EvmPageTools } from './evm-wallet.ts';

export const rbtc = (units: number | bigint): string => `${(Number(units) / 1e8).toFixed(8)} RBTC`;
export const weiText = (wei: bigint): string => `${(Number(wei) / 1e18).toFixed(8)} RBTC`;

export interface ContractLockView {
  /** What the wallet locks, in satoshi units of RBTC. */
  amount: number;
  /** What happens once it is locked, in words. */
  then: string;
  contractAddress: string;
  account: string;
  values: { preimageHash: string; claimAddress: string; timelock: number; amount: bigint };
  lockup?: { txHash: string };
  /** Sends the lock through the wallet. */
  send: () => Promise<{ txHash: string; fee: bigint }>;
}

export function showContractLock(tools: EvmPageTools, view: ContractLockView): void {
  const { $ } = tools;
  const { values } = view;
  $('contract-amount').textContent = `${rbtc(view.amount)} (${tools.sat(view.amount)})`;
  $('contract-then').textContent = view.then;
  $('contract-address').textContent = view.contractAddress;
  $('contract-call').textContent = `lock(preimageHash 0x${values.preimageHash}, claimAddress ${values.claimAddress}, timelock ${values.timelock}) with value ${values.amount} wei`;
  $('contract-from').textContent = view.account;
  const button = $<HTMLButtonElement>('contract-lock');
  button.disabled = view.lockup !== undefined;
  button.textContent = view.lockup === undefined ? 'Lock with your wallet' : 'Locked';
  $('contract-lock-result').textContent = view.lockup === undefined ? '' : `Locked in transaction ${view.lockup.txHash}.`;
  button.onclick = () => void lock(tools, view);
  tools.show('view-pay-contract');
}

let locking = false;
async function lock(tools: EvmPageTools, view: ContractLockView): Promise<void> {
  if (locking) return;
  locking = true;
  const { $ } = tools;
  const button = $<HTMLButtonElement>('contract-lock');
  const result = $('contract-lock-result');
  button.disabled = true;
  button.textContent = 'Confirm in your wallet…';
  result.textContent = '';
  try {
    const tx = await view.send();
    button.textContent = 'Locked';
    result.textContent = `Locked in transaction ${tx.txHash} (gas ${weiText(tx.fee)}).`;
    tools.step(`Your wallet locked ${rbtc(view.amount)} in the swap contract: transaction ${tx.txHash}.`, 'good');
  } catch (error) {
    button.disabled = false;
    button.textContent = 'Lock with your wallet';
    result.textContent = `The lock was not sent: ${tools.errorText(error)}`;
  } finally {
    locking = false;
    tools.renderHistory();
  }
}
