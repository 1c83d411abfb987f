/// <reference lib="dom" />
// RBTC swaps on the page, through the browser's own Ethereum wallet (EIP-1193, window.ethereum): the wallet holds the
// account, signs the lock of a submarine swap and the claim of a reverse swap, and answers the chain's reads; the SDK
// checks the service's contract through it before anything is sent. The user's address is the wallet's account, so
// no address is typed; reverse-swap preimages derive from the page's rescue key (the wallet never shows its key).
// Each swap is stored before its lock is asked for, so a funded swap is never lost: Resume reconnects the wallet.
// app.ts loads this file (and with it ethers) only once an RBTC pair is chosen or resumed.
import {
  ContractSwaps,
  connectEvmChain,
  followContractSwap,
  type ClientStore,
  type ContractFollowEvent,
  type ContractRecord,
  type ContractReverseRecord,
  type ContractSubmarineRecord,
  type InjectedEvmAccount,
  type NetworkName,
  type SwapClient,
} from '@ferry/sdk/client/index.js';
import { rbtc, showContractLock, weiText } from './contract-lock.ts';

/** What this file borrows from app.ts. */
export interface EvmPageTools {
  client: SwapClient;
  store: ClientStore;
  network: NetworkName;
  $: <T extends HTMLElement = HTMLElement>(id: string) => T;
  show(view: string): void;
  sat(n: number | bigint): string;
  step(text: string, tone?: 'good' | 'bad'): void;
  drawQr(container: HTMLElement, text: string): void;
  startProgress(id: string): void;
  words(type: 'reverse' | 'submarine', status: string): string;
  errorText(error: unknown): string;
  renderHistory(): void;
  /** The id of the swap the page shows now. */
  shown(): string | undefined;
}

export const NO_WALLET = 'no Ethereum wallet found in this browser';

/** An RBTC amount in API units (10^-8 RBTC) as the page shows it. */

let connected: Promise<ContractSwaps> | undefined;

/** The wallet's account on the service's contract, connected once (eth_requestAccounts asks the user). */
export function connectWallet(tools: EvmPageTools): Promise<ContractSwaps> {
  const ethereum = (window as { ethereum?: InjectedEvmAccount['provider'] }).ethereum;
  if (ethereum === undefined || typeof ethereum.request !== 'function') {
    return Promise.reject(new Error(`${NO_WALLET}: RBTC swaps need one (a browser extension such as MetaMask or Rabby).`));
  }
  connected ??= (async () => {
    const { client, store, network } = tools;
    const chain = await connectEvmChain({
      account: { provider: ethereum, preimageKey: store.rescueKey().contractPreimageKey() },
      contracts: await client.api.contracts('RBTC'),
      currency: 'RBTC',
    });
    return new ContractSwaps({ api: client.api, network, chain, store });
  })();
  connected.catch(() => (connected = undefined)); // asked again next time (the user may have refused, or unlocked it since)
  return connected;
}

/** The wallet's account, for the views that name where coins come from or go. */
export async function walletAccount(tools: EvmPageTools): Promise<string> {
  return (await connectWallet(tools)).chain.address;
}

/** Creates the swap (stored before anything moves) and shows its next step; follows it to its end. */
export async function createContractSwap(tools: EvmPageTools, request: { direction: 'reverse'; invoiceAmount: number } | { direction: 'submarine'; invoice: string }): Promise<ContractRecord> {
  const swaps = await connectWallet(tools);
  const record = request.direction === 'reverse' ? await swaps.createReverse({ invoiceAmount: request.invoiceAmount }) : await swaps.createSubmarine({ invoice: request.invoice });
  showContractSwap(tools, swaps, record);
  return record;
}

/** Shows a stored RBTC swap again and follows it, once the wallet is connected with the swap's account. */
export async function resumeContractSwap(tools: EvmPageTools, record: ContractRecord): Promise<void> {
  const swaps = await connectWallet(tools);
  if (swaps.chain.address.toLowerCase() !== record.account.toLowerCase()) {
    throw new Error(`swap ${record.id} belongs to ${record.account}: choose that account in your wallet (it gave ${swaps.chain.address})`);
  }
  if (record.type === 'submarine' && record.lockup === undefined) {
    // The page closed while the wallet's lock was on its way: the contract knows, and then a failure is refunded.
    const locked = (await swaps.chain.lockupsFor(record.preimageHash)).find((lockup) => lockup.refundAddress.toLowerCase() === record.account.toLowerCase());
    if (locked !== undefined) {
      record.lockup = { txHash: locked.txHash };
      swaps.save(record);
    }
  }
  showContractSwap(tools, swaps, record);
  tools.step('Resumed from this browser\'s storage.');
}

function showContractSwap(tools: EvmPageTools, swaps: ContractSwaps, record: ContractRecord): void {
  const { $ } = tools;
  tools.startProgress(record.id);
  if (record.type === 'reverse') {
    $('pay-invoice-amount').textContent = tools.sat(record.invoiceAmount);
    $('pay-invoice-destination').textContent = `${record.account} (your wallet's account: ${rbtc(record.onchainAmount)} less the claim's gas)`;
    $('invoice-text').textContent = record.invoice;
    tools.drawQr($('invoice-qr'), record.invoice.toUpperCase());
    tools.show('view-pay-invoice');
  } else {
    showLock(tools, swaps, record);
  }
  void follow(tools, swaps, record);
}

/** The submarine swap's lock, as the wallet will be asked to send it: the contract call, its values and the amount. */
function showLock(tools: EvmPageTools, swaps: ContractSwaps, record: ContractSubmarineRecord): void {
  showContractLock(tools, {
    amount: record.expectedAmount,
    then: 'Ferry then pays your invoice and takes the coins with its secret. If Ferry cannot pay, they come back to your account.',
    contractAddress: record.contract.address,
    account: record.account,
    values: swaps.submarineValues(record),
    lockup: record.lockup,
    send: () => swaps.lock(record),
  });
}

/** The swaps followed now: each once. */
const following = new Set<string>();

async function follow(tools: EvmPageTools, swaps: ContractSwaps, record: ContractRecord): Promise<void> {
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
  let spent: { txHash: string; amount: bigint; fee: bigint } | undefined;
  const onEvent = (event: ContractFollowEvent) => {
    if (event.type === 'claimed' && record.type === 'reverse') spent = { ...event.tx, amount: swaps.reverseValues(record).amount };
    if (event.type === 'refunded') spent = { ...event.refund, amount: event.refund.lockup.amount };
    if (shown()) describe(tools, record, event);
    tools.renderHistory();
  };
  try {
    const result = await followContractSwap(swaps, record, { stream, onEvent });
    ended = true;
    if (shown()) {
      $('connection').textContent = 'ended';
      finish(tools, record, result.success, result.message, spent);
    }
  } catch (error) {
    if (shown()) tools.step(`Following the swap stopped: ${tools.errorText(error)}. It is kept in this browser: Resume it below.`, 'bad');
  } finally {
    following.delete(record.id);
    stream.close();
    tools.renderHistory();
  }
}

function describe(tools: EvmPageTools, record: ContractRecord, event: ContractFollowEvent): void {
  if (event.type === 'status') {
    const bad = /expired|failed|refunded|lockupFailed/.test(event.update.status);
    const words = record.type === 'submarine' && event.update.status === 'invoice.set' ? 'Waiting for the lock from your wallet.' : tools.words(record.type, event.update.status);
    tools.step(words, bad ? 'bad' : undefined);
  } else if (event.type === 'claimed') {
    tools.step(`Claimed ${rbtc((record as ContractReverseRecord).onchainAmount)} to your account, signed by your wallet: transaction ${event.tx.txHash} (gas ${weiText(event.tx.fee)}).`, 'good');
  } else if (event.type === 'refunded') {
    tools.step(`Refunded ${weiText(event.refund.lockup.amount)} to your account (${event.refund.path}): transaction ${event.refund.txHash}.`, 'good');
  } else if (event.type === 'warning') {
    tools.step(event.message, 'bad');
  }
}

function finish(tools: EvmPageTools, record: ContractRecord, success: boolean, message: string | undefined, spent?: { txHash: string; amount: bigint; fee: bigint }): void {
  const { $ } = tools;
  if (record.type === 'reverse' && success && spent) {
    $('done-title').textContent = `Received ${weiText(spent.amount)}`;
    $('done-text').textContent = `The coins are in your wallet's account ${record.account} (the claim's gas, ${weiText(spent.fee)}, paid from it).`;
  } else if (record.type === 'submarine' && success) {
    $('done-title').textContent = 'Invoice paid';
    $('done-text').textContent = `${tools.sat(record.invoiceAmount)} paid over Lightning; Ferry takes the ${rbtc(record.expectedAmount)} your wallet locked.`;
  } else if (spent) {
    $('done-title').textContent = `Refunded ${weiText(spent.amount)}`;
    $('done-text').textContent = `Ferry could not complete the swap (${record.status}); the coins went back to ${record.account}.`;
  } else {
    $('done-title').textContent = success ? 'Swap finished' : 'The swap ended';
    $('done-text').textContent = message ?? record.status ?? '';
  }
  $('done-txid').textContent = spent?.txHash ?? '';
  $('done-tx-line').hidden = spent === undefined;
  tools.show('view-done');
}
