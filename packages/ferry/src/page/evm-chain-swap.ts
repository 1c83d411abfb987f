/// <reference lib="dom" />
// Chain → chain swaps with an RBTC side on the page (BTC → RBTC, RBTC → BTC, and L-BTC's where Ferry serves them),
// the RBTC side through the browser's Ethereum wallet as the page's other RBTC swaps: into RBTC, the user sends to a
// lockup address on the UTXO chain and the wallet claims Ferry's lock in the contract (then this browser co-signs
// Ferry's claim of the user's coins); out of RBTC, the wallet locks in the contract for Ferry's account and this
// browser claims Ferry's lockup to the address typed. A failed swap is refunded: the wallet's lock with Ferry's
// signature (or after the timelock), the UTXO lockup to the refund address typed. Loaded with ethers, as
// evm-wallet.ts, only once such a swap is created or resumed; the record is stored before anything is sent.
import {
  ContractChainSwaps,
  followContractChainSwap,
  locksInContract,
  type ContractChainFollowEvent,
  type ContractChainRecord,
} from '@ferry/sdk/client/index.js';
import { connectWallet, type EvmPageTools } from './evm-wallet.ts';
import { rbtc, showContractLock, weiText } from './contract-lock.ts';

/** The one UTXO address typed for the swap (the refund's into RBTC, the claim's out of it), kept beside the record. */
const addressKey = (id: string): string => `ferry-page/contract-chain-address/${id}`;
export const utxoAddressOf = (record: ContractChainRecord): string | undefined => localStorage.getItem(addressKey(record.id)) ?? undefined;


const WORDS: Record<string, string> = {
  'swap.created': 'Swap created: waiting for your coins.',
  'transaction.mempool': 'Your coins were seen on chain (not yet confirmed).',
  'transaction.confirmed': 'Your coins are confirmed: Ferry locks its side now.',
  'transaction.server.mempool': 'Ferry locked its coins for you (not yet confirmed).',
  'transaction.server.confirmed': "Ferry's coins are confirmed: claiming them now.",
  'transaction.claim.pending': 'You claimed your coins: Ferry takes the ones you sent.',
  'transaction.claimed': 'Done: you claimed your coins and Ferry took the ones you sent.',
  'transaction.lockupFailed': 'The coins sent do not match the swap: they are refunded.',
  'transaction.failed': 'Ferry could not lock its side: your coins are refunded.',
  'transaction.refunded': 'Ferry took its coins back after the timeout: your coins are refunded.',
  'swap.expired': 'The swap expired.',
};

async function chainSwapsOf(tools: EvmPageTools): Promise<ContractChainSwaps> {
  return new ContractChainSwaps(tools.client, await connectWallet(tools));
}

/** Creates the swap (the SDK checks Ferry's answer on both chains first) and shows its next step; follows it. */
export async function createContractChainSwap(tools: EvmPageTools, request: { from: string; to: string; amount: number; address: string }): Promise<ContractChainRecord> {
  const swaps = await chainSwapsOf(tools);
  const record = await swaps.create({ from: request.from, to: request.to, userLockAmount: request.amount });
  localStorage.setItem(addressKey(record.id), request.address);
  showSwap(tools, swaps, record);
  return record;
}

/** Shows a stored swap again and follows it, once the wallet is connected with the swap's account. */
export async function resumeContractChainSwap(tools: EvmPageTools, record: ContractChainRecord): Promise<void> {
  const swaps = await chainSwapsOf(tools);
  if (swaps.chain.address.toLowerCase() !== record.contractSide.account.toLowerCase()) {
    throw new Error(`swap ${record.id} belongs to ${record.contractSide.account}: choose that account in your wallet (it gave ${swaps.chain.address})`);
  }
  if (locksInContract(record) && record.contractSide.lockup === undefined) {
    // The page closed while the wallet's lock was on its way: the contract knows.
    const locked = (await swaps.chain.lockupsOf(record.contractSide.account)).find((lockup) => lockup.preimageHash === record.preimageHash);
    if (locked !== undefined) {
      record.contractSide.lockup = { txHash: locked.txHash };
      swaps.save(record);
    }
  }
  showSwap(tools, swaps, record);
  tools.step("Resumed from this browser's storage.");
}

function showSwap(tools: EvmPageTools, swaps: ContractChainSwaps, record: ContractChainRecord): void {
  tools.startProgress(record.id);
  if (locksInContract(record)) showLock(tools, swaps, record);
  else showLockup(tools, record);
  void follow(tools, swaps, record);
}

/** Into RBTC: the UTXO lockup to fund, and what arrives in the wallet's account. */
function showLockup(tools: EvmPageTools, record: ContractChainRecord): void {
  const { $ } = tools;
  const side = record.utxoSide;
  const coins = (record.userLockAmount / 1e8).toFixed(8);
  $('pay-chain-amount').textContent = `${tools.sat(record.userLockAmount)} (${coins} ${side.currency})`;
  $('pay-chain-then').textContent = `Ferry then locks ${rbtc(record.serverLockAmount)} in its swap contract, which your wallet claims to ${record.contractSide.account} (the claim's gas paid from it).`;
  $('address-text').textContent = side.lockupAddress;
  tools.drawQr($('address-qr'), side.bip21 ?? `${side.currency === 'L-BTC' ? 'liquidnetwork' : 'bitcoin'}:${side.lockupAddress}?amount=${coins}`);
  tools.show('view-pay-chain');
}

/** Out of RBTC: the wallet's lock as it will be asked to send it, and what Ferry locks for it. */
function showLock(tools: EvmPageTools, swaps: ContractChainSwaps, record: ContractChainRecord): void {
  const side = record.contractSide;
  showContractLock(tools, {
    amount: record.userLockAmount,
    then:
      `Ferry then locks ${tools.sat(record.serverLockAmount)} on ${record.utxoSide.currency}, which this browser claims to ${utxoAddressOf(record) ?? 'your address'}, ` +
      'and takes your lock with the secret that claim reveals. If the swap fails, your coins come back to your account.',
    contractAddress: side.contract.address,
    account: side.account,
    values: swaps.contractValues(record),
    lockup: side.lockup,
    send: () => swaps.lock(record),
  });
}

const following = new Set<string>();

async function follow(tools: EvmPageTools, swaps: ContractChainSwaps, record: ContractChainRecord): Promise<void> {
  if (following.has(record.id)) return;
  following.add(record.id);
  const { $ } = tools;
  const shown = () => tools.shown() === record.id;
  const stream = tools.client.statusStream();
  let ended = false;
  stream.on('connection', (connection) => {
    if (!ended && shown()) $('connection').textContent = connection === 'open' ? 'live updates' : connection === 'connecting' ? 'connecting…' : 'checking every few seconds';
  });
  stream.on('error', () => undefined);
  const destination = () => {
    const address = utxoAddressOf(record);
    if (address === undefined) throw new Error(`no ${record.utxoSide.currency} address is kept for swap ${record.id} in this browser`);
    return address;
  };
  const onEvent = (event: ContractChainFollowEvent) => {
    if (shown()) describe(tools, record, event);
    tools.renderHistory();
  };
  try {
    const result = await followContractChainSwap(swaps, record, { stream, destination, onEvent });
    ended = true;
    if (shown()) {
      $('connection').textContent = 'ended';
      finish(tools, record, result.success, result.message);
    }
  } catch (error) {
    if (shown()) tools.step(`Following the swap stopped: ${tools.errorText(error)}. It is kept in this browser: Resume it below.`, 'bad');
  } finally {
    following.delete(record.id);
    stream.close();
    tools.renderHistory();
  }
}

function describe(tools: EvmPageTools, record: ContractChainRecord, event: ContractChainFollowEvent): void {
  const inContract = locksInContract(record);
  if (event.type === 'status') {
    const status = event.update.status;
    const words = inContract && status === 'swap.created' ? 'Waiting for the lock from your wallet.' : (WORDS[status] ?? `Status: ${status}.`);
    tools.step(words, /expired|failed|refunded|lockupFailed/.test(status) ? 'bad' : undefined);
  } else if (event.type === 'claimed') {
    tools.step(
      inContract
        ? `Claimed ${tools.sat(record.serverLockAmount - Number(event.claim.fee))} to ${utxoAddressOf(record)}, signed in this browser: transaction ${event.claim.id}.`
        : `Claimed ${rbtc(record.serverLockAmount)} to your account, signed by your wallet: transaction ${event.claim.id} (gas ${weiText(event.claim.fee)}).`,
      'good',
    );
  } else if (event.type === 'cosigned') {
    tools.step("This browser co-signed Ferry's claim of the coins you sent.", 'good');
  } else if (event.type === 'refunded') {
    tools.step(`Refunded your coins: transaction ${event.refund.id}.`, 'good');
  } else if (event.type === 'warning') {
    tools.step(event.message, 'bad');
  }
}

function finish(tools: EvmPageTools, record: ContractChainRecord, success: boolean, message: string | undefined): void {
  const { $ } = tools;
  const inContract = locksInContract(record);
  let txid: string | undefined;
  if (success) {
    if (inContract) {
      const claim = record.utxoSide.claim;
      $('done-title').textContent = `Received ${tools.sat(claim?.amount ?? record.serverLockAmount)}`;
      $('done-text').textContent = `The coins are on ${record.utxoSide.currency} at ${utxoAddressOf(record)}; Ferry took the ${rbtc(record.userLockAmount)} your wallet locked.`;
      txid = claim?.txid;
    } else {
      const claim = record.contractSide.claim;
      $('done-title').textContent = `Received ${rbtc(record.serverLockAmount)}`;
      $('done-text').textContent = `The coins are in your wallet's account ${record.contractSide.account}${claim ? ` (the claim's gas, ${weiText(BigInt(claim.fee))}, paid from it)` : ''}.`;
      txid = claim?.txHash;
    }
  } else if (record.contractSide.refund !== undefined) {
    $('done-title').textContent = `Refunded ${weiText(BigInt(record.contractSide.refund.amount))}`;
    $('done-text').textContent = `Ferry could not complete the swap (${record.status}); the coins went back to ${record.contractSide.account}.`;
    txid = record.contractSide.refund.txHash;
  } else if (record.utxoSide.refund !== undefined) {
    $('done-title').textContent = `Refunded ${tools.sat(record.utxoSide.refund.amount)}`;
    $('done-text').textContent = `Ferry could not complete the swap (${record.status}); your coins went back to ${record.utxoSide.refund.address}.`;
    txid = record.utxoSide.refund.txid;
  } else {
    $('done-title').textContent = 'The swap ended';
    $('done-text').textContent = message ?? record.status ?? '';
  }
  $('done-txid').textContent = txid ?? '';
  $('done-tx-line').hidden = txid === undefined;
  tools.show('view-done');
}
