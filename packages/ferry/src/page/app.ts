/// <reference lib="dom" />
// The swap page's script, run in the user's browser: it talks only to Ferry's public API, through the client SDK,
// as any wallet would. Keys and preimages are made here from a rescue key the user saves first, every answer is
// checked by the SDK before it is shown, claims are signed here, and the swaps are kept in this origin's
// localStorage. Plain DOM: each view is a <section> of index.html that this shows or hides. RBTC swaps go through
// the browser's Ethereum wallet (evm-wallet.ts; chain swaps with an RBTC side in evm-chain-swap.ts), loaded with
// ethers only when an RBTC pair is chosen.
import {
  BrowserStorage,
  ClientStore,
  FINAL_STATUSES,
  NETWORK_NAMES,
  SWAP_CURRENCIES,
  SwapClient,
  destinationOf,
  encodeQr,
  followSwap,
  isContractCurrency,
  refundFileBlob,
  refundFileOf,
  swapChain,
  type FollowEvent,
  type NetworkName,
  type ReverseRecord,
  type SubmarineRecord,
  type SwapRecord,
  type ContractRecord,
  type ContractChainRecord,
} from '@ferry/sdk/client/core.js';
import { isOpenContract, isOpenContractChain } from './contract-records.ts';
import * as chainSwap from './chain-swap.ts';
import { addScanButton } from './scan.ts';
import { initRefundView } from './refund-view.ts';

type Direction = 'reverse' | 'submarine' | 'chain';
interface Pair {
  rate: number;
  limits: { minimal: number; maximal: number };
  fees: { percentage: number; minerFees: number | { lockup: number; claim: number } };
}

const $ = <T extends HTMLElement = HTMLElement>(id: string): T => {
  const found = document.getElementById(id);
  if (found === null) throw new Error(`the page has no #${id}`);
  return found as T;
};
const network = (document.querySelector('meta[name="ferry-network"]')?.getAttribute('content') ?? 'regtest') as NetworkName;
const store = new ClientStore(new BrowserStorage('ferry-page/'));
const client = new SwapClient({ serviceUrl: location.origin, network, store });
const sat = (n: number | bigint): string => `${Number(n).toLocaleString('en-US')} sat`;
/** The RBTC swaps' code, fetched (with ethers) the first time it is needed. */
const evmWallet = () => import('./evm-wallet.ts');
/** Chain swaps with an RBTC side, fetched with the wallet code. */
const evmChainSwap = () => import('./evm-chain-swap.ts');

const VIEWS = ['view-choose', 'view-destination', 'view-invoice-input', 'view-chain-addresses', 'view-rescue', 'view-pay-invoice', 'view-pay-chain', 'view-pay-contract', 'view-done', 'view-refund'];

/** Shows one view, and moves the keyboard focus to its heading so a screen reader and Tab start there. */
function show(view: string): void {
  for (const id of VIEWS) $(id).hidden = id !== view;
  const heading = $(view).querySelector('h2');
  if (heading) {
    heading.tabIndex = -1;
    heading.focus();
  }
}

function showError(message: string | undefined): void {
  const box = $('error');
  box.textContent = message ?? '';
  box.hidden = message === undefined;
}

const errorText = (error: unknown): string => {
  const e = error as Error;
  if (e?.name === 'ServiceUnreachableError') return 'Ferry cannot be reached right now: check your connection and try again.';
  return e?.message ?? String(error);
};

// ---- the pairs Ferry serves, and the live quote -------------------------------------------------------------

const pairs: Record<Direction, Record<string, Pair>> = { reverse: {}, submarine: {}, chain: {} };
// `chain` is the chain of a reverse or submarine swap, or a chain swap's pair as `from/to` (chain-swap.ts).
// `account`: a chain swap's RBTC side, the wallet's account it pays to or refunds to.
const state: { direction: Direction; chain: string; amount: number; destination?: string; invoice?: string; refundAddress?: string; account?: { currency: string; address: string } } = {
  direction: 'reverse',
  chain: 'BTC',
  amount: 0,
};

async function loadPairs(): Promise<void> {
  const [reverse, submarine, chain] = await Promise.all([client.api.reversePairs(), client.api.submarinePairs(), chainSwap.loadChainPairs(client, (currency) => isSwappable(currency) || isContractCurrency(currency))]);
  pairs.chain = chain as unknown as Record<string, Pair>; // chain-swap.ts prices these
  // reverse: BTC (Lightning) → chain; submarine: chain → BTC (Lightning). Only chains the SDK can swap on.
  // RBTC (a contract chain) through the browser's Ethereum wallet.
  const usable = (currency: string) => isSwappable(currency) || isContractCurrency(currency);
  for (const [to, pair] of Object.entries(reverse.BTC ?? {})) if (usable(to)) pairs.reverse[to] = pair as Pair;
  for (const [from, byTo] of Object.entries(submarine)) if (byTo.BTC && usable(from)) pairs.submarine[from] = byTo.BTC as Pair;
}

function isSwappable(currency: string): boolean {
  try {
    swapChain(currency);
    return true;
  } catch {
    return false;
  }
}

const CHAIN_NAMES: Record<string, string> = { BTC: 'BTC (Bitcoin)', 'L-BTC': 'L-BTC (Liquid)', RBTC: 'RBTC (Rootstock, with your Ethereum wallet)' };
const chainName = (currency: string): string => CHAIN_NAMES[currency] ?? currency;

function fillChains(): void {
  const select = $<HTMLSelectElement>('chain');
  const chains = Object.keys(pairs[state.direction]);
  const label = state.direction === 'chain' ? chainSwap.chainPairLabel : chainName;
  select.replaceChildren(...chains.map((currency) => new Option(label(currency), currency, false, currency === state.chain)));
  if (!chains.includes(state.chain)) state.chain = chains[0] ?? '';
  select.value = state.chain;
}

const percentOf = (amount: number, percentage: number): number => Math.ceil((amount * percentage) / 100);

/** Fees, limits and the result for what is typed: returns whether the amount can be swapped. */
function quote(): boolean {
  const pair = pairs[state.direction][state.chain];
  const raw = $<HTMLInputElement>('amount').value.replace(/[\s,_]/g, '');
  const amount = /^\d+$/.test(raw) ? Number(raw) : NaN;
  const error = $('amount-error');
  const sides = chainSwap.sidesOf(state.chain);
  $('amount-label').textContent = { reverse: 'Amount to pay over Lightning (sat)', submarine: 'Amount of the invoice to pay (sat)', chain: `Amount to send on ${sides.from} (sat)` }[state.direction];
  $('quote-result-label').textContent = { reverse: `You receive on ${state.chain} (about)`, submarine: `You send on ${state.chain}`, chain: `You receive on ${sides.to} (about)` }[state.direction];
  if (pair === undefined) {
    error.textContent = 'Ferry serves no pair in this direction.';
    return false;
  }
  $('limits').textContent = `Limits: ${sat(pair.limits.minimal)} to ${sat(pair.limits.maximal)}.`;
  const clear = () => {
    for (const id of ['quote-fee', 'quote-miner', 'quote-result']) $(id).textContent = '–';
  };
  if (!Number.isSafeInteger(amount)) {
    error.textContent = raw === '' ? 'Enter an amount in sat.' : 'Whole sat only, digits 0–9.';
    clear();
    return false;
  }
  state.amount = amount;
  if (state.direction === 'reverse') {
    const miner = pair.fees.minerFees as { lockup: number; claim: number };
    const converted = Math.floor(amount * pair.rate);
    const fee = percentOf(converted, pair.fees.percentage);
    $('quote-fee').textContent = `${sat(fee)} (${pair.fees.percentage} %)`;
    $('quote-miner').textContent = sat(miner.lockup + miner.claim);
    $('quote-result').textContent = sat(Math.max(0, converted - fee - miner.lockup - miner.claim));
  } else if (state.direction === 'chain') {
    const { fee, miner, receive } = chainSwap.quoteChain(pair as unknown as chainSwap.ChainPair, amount);
    $('quote-fee').textContent = `${sat(fee)} (${pair.fees.percentage} %)`;
    $('quote-miner').textContent = sat(miner);
    $('quote-result').textContent = sat(receive);
  } else {
    const miner = pair.fees.minerFees as number;
    const converted = Math.ceil(amount / pair.rate);
    const fee = percentOf(converted, pair.fees.percentage);
    $('quote-fee').textContent = `${sat(fee)} (${pair.fees.percentage} %)`;
    $('quote-miner').textContent = sat(miner);
    $('quote-result').textContent = sat(converted + fee + miner);
  }
  if (amount < pair.limits.minimal || amount > pair.limits.maximal) {
    error.textContent = `Out of limits: between ${sat(pair.limits.minimal)} and ${sat(pair.limits.maximal)}.`;
    return false;
  }
  error.textContent = '';
  return true;
}

function onChoiceChanged(): void {
  state.direction = (document.querySelector('input[name="direction"]:checked') as HTMLInputElement).value as Direction;
  fillChains();
  quote();
}

// ---- the steps of a swap, in plain words ------------------------------------------------------------------

const REVERSE_WORDS: Record<string, string> = {
  'swap.created': 'Swap created: waiting for the invoice to be paid.',
  'minerfee.paid': 'The miner fee prepayment arrived.',
  'transaction.mempool': 'Payment held. Ferry locked the coins on chain (not yet confirmed): claiming them now.',
  'transaction.confirmed': "Ferry's coins are confirmed on chain.",
  'invoice.settled': 'Done: the claim revealed the secret and settled the invoice.',
  'invoice.expired': 'The invoice expired before it was paid: nothing moved.',
  'swap.expired': 'The swap expired: nothing moved.',
  'transaction.failed': 'Ferry could not lock the coins: your payment is returned to your wallet.',
  'transaction.refunded': 'Ferry took its coins back after the timeout: your payment is returned to your wallet.',
};
const SUBMARINE_WORDS: Record<string, string> = {
  'swap.created': 'Swap created.',
  'invoice.set': 'Waiting for your coins at the address above.',
  'transaction.mempool': 'Your coins were seen on chain (not yet confirmed).',
  'transaction.confirmed': 'Your coins are confirmed.',
  'invoice.pending': 'Ferry is paying the invoice.',
  'invoice.paid': 'The invoice is paid.',
  'transaction.claim.pending': 'Ferry asks to take the coins: this browser checks the payment and co-signs.',
  'transaction.claimed': 'Done: the invoice is paid and Ferry took the coins.',
  'invoice.failedToPay': 'Ferry could not pay the invoice: your coins will be refunded.',
  'transaction.lockupFailed': 'The coins sent do not match the swap: they will be refunded.',
  'swap.expired': 'The swap expired.',
};

function step(text: string, tone?: 'good' | 'bad'): void {
  const item = document.createElement('li');
  item.textContent = text;
  if (tone) item.className = tone;
  $('steps').append(item);
}

function describe(record: SwapRecord, event: FollowEvent): void {
  if (event.type === 'status') {
    const words = { reverse: REVERSE_WORDS, submarine: SUBMARINE_WORDS, chain: chainSwap.CHAIN_WORDS }[record.type][event.update.status] ?? `Status: ${event.update.status}.`;
    const bad = /expired|failed|refunded|lockupFailed/.test(event.update.status);
    step(words, bad ? 'bad' : undefined);
  } else if (event.type === 'claimed') {
    const path = event.claim.path === 'key' ? 'together with Ferry (key path)' : 'alone, by the script (no help needed from Ferry)';
    step(`Claimed ${sat(event.claim.amount)} to your address, signed in this browser ${path}: transaction ${event.claim.txid}.`, 'good');
  } else if (event.type === 'cosigned') {
    step('The invoice was paid (proof checked): this browser co-signed Ferry\'s claim.', 'good');
  } else if (event.type === 'refunded') {
    step(`Refunded ${sat(event.refund.amount)} to your address: transaction ${event.refund.txid}.`, 'good');
  } else if (event.type === 'quoted') {
    step(chainSwap.quotedWords(event));
  } else if (event.type === 'warning') {
    step(event.message, 'bad');
  }
}

// ---- QR codes and copying ---------------------------------------------------------------------------------

/** A QR code as SVG (one path of dark modules, with the quiet zone), drawn by the SDK's encoder. */
function drawQr(container: HTMLElement, text: string): void {
  const symbol = encodeQr(new TextEncoder().encode(text), { level: 'M' });
  const quiet = 4;
  const size = symbol.size + 2 * quiet;
  let path = '';
  symbol.dark.forEach((dark, at) => {
    if (dark) path += `M${(at % symbol.size) + quiet} ${Math.floor(at / symbol.size) + quiet}h1v1h-1z`;
  });
  const svgNs = 'http://www.w3.org/2000/svg';
  const svg = document.createElementNS(svgNs, 'svg');
  svg.setAttribute('viewBox', `0 0 ${size} ${size}`);
  svg.setAttribute('shape-rendering', 'crispEdges');
  svg.setAttribute('aria-hidden', 'true');
  const fill = document.createElementNS(svgNs, 'path');
  fill.setAttribute('d', path);
  svg.append(fill);
  container.replaceChildren(svg);
}

async function copy(button: HTMLButtonElement, text: string): Promise<void> {
  const label = button.textContent;
  try {
    await navigator.clipboard.writeText(text);
    button.textContent = 'Copied';
  } catch {
    button.textContent = 'Select the text to copy';
  }
  setTimeout(() => (button.textContent = label), 2_000);
}

function download(name: string, blob: Blob): void {
  const link = document.createElement('a');
  link.href = URL.createObjectURL(blob);
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(link.href), 10_000);
}

// ---- the flow ---------------------------------------------------------------------------------------------

/** The address in `field` if this swap can pay to it (chain and network), else the reason beside the field. */
function checkAddress(field: string, currency = state.chain): string | undefined {
  const input = $<HTMLInputElement>(field);
  const address = input.value.trim();
  const error = $(`${field}-error`);
  if (address === '') {
    error.textContent = 'Enter an address.';
    return undefined;
  }
  try {
    destinationOf(swapChain(currency), address, network);
  } catch (problem) {
    error.textContent = whyNot(address, (problem as Error).message, currency);
    input.setAttribute('aria-invalid', 'true');
    return undefined;
  }
  input.removeAttribute('aria-invalid');
  error.textContent = '';
  return address;
}

/** Why an address is refused, in the user's terms: another network, another chain, or not an address at all. */
function whyNot(address: string, message: string, currency = state.chain): string {
  for (const other of NETWORK_NAMES.filter((name) => name !== network)) {
    for (const candidate of SWAP_CURRENCIES) {
      try {
        swapChain(candidate).decodeAddress(address, other);
        return `That is a ${other} ${chainName(candidate)} address, but this Ferry swaps on ${network}: nothing was sent.`;
      } catch {
        // not of this network and chain either
      }
    }
  }
  // destinationOf names another chain of the same network, or an unblinded Liquid address, in words already.
  if (/ is (a Liquid|a Bitcoin) address|not confidential/.test(message)) return message;
  return `Not a ${chainName(currency)} address: check it and paste it again.`;
}

function showRescue(): void {
  const rescue = store.rescueKey();
  $('rescue-words').textContent = rescue.mnemonic;
  $<HTMLInputElement>('rescue-saved').checked = false;
  $<HTMLButtonElement>('create').disabled = true;
  show('view-rescue');
}

/** What chain-swap.ts borrows from this file. */
const tools: chainSwap.PageTools = { $, show, checkAddress, drawQr, chainName };

/** The swap being shown. */
let current: SwapRecord | undefined;
/** The RBTC swap being shown (evm-wallet.ts shows it). */
let currentContract: string | undefined;

/** What evm-wallet.ts borrows from this file. */
const evmTools = {
  client,
  store,
  network,
  $,
  show,
  sat,
  step,
  drawQr,
  errorText,
  renderHistory: () => renderHistory(),
  startProgress: (id: string) => {
    currentContract = id;
    current = undefined;
    startProgress({ id });
  },
  words: (type: 'reverse' | 'submarine', status: string) => ({ reverse: REVERSE_WORDS, submarine: SUBMARINE_WORDS })[type][status] ?? `Status: ${status}.`,
  shown: () => currentContract,
};

/** Connects the browser's Ethereum wallet for an RBTC swap: its account is where coins go, or come back to. */
async function askWallet(): Promise<string | undefined> {
  showError(undefined);
  const button = $<HTMLButtonElement>('continue');
  button.disabled = true;
  try {
    return await (await evmWallet()).walletAccount(evmTools);
  } catch (error) {
    showError(`RBTC needs your Ethereum wallet: ${errorText(error)}`);
    return undefined;
  } finally {
    button.disabled = false;
  }
}
let creating = false;
async function create(): Promise<void> {
  if (creating) return;
  creating = true;
  const button = $<HTMLButtonElement>('create');
  button.disabled = true;
  button.textContent = 'Creating…';
  showError(undefined);
  try {
    if (isContractCurrency(state.chain) && state.direction !== 'chain') {
      currentContract = undefined;
      current = undefined;
      const evm = await evmWallet();
      const request = state.direction === 'reverse' ? { direction: 'reverse' as const, invoiceAmount: state.amount } : { direction: 'submarine' as const, invoice: state.invoice! };
      await evm.createContractSwap(evmTools, request);
    } else if (state.direction === 'reverse') {
      const record = await client.createReverse({ currency: state.chain, invoiceAmount: state.amount });
      record.destination = state.destination;
      store.save(record);
      current = record;
      showInvoice(record);
      void follow(record);
    } else if (state.direction === 'chain' && state.account !== undefined) {
      currentContract = undefined;
      current = undefined;
      const { from, to } = chainSwap.sidesOf(state.chain);
      const address = state.account.currency === to ? state.refundAddress! : state.destination!;
      await (await evmChainSwap()).createContractChainSwap(evmTools, { from, to, amount: state.amount, address });
    } else if (state.direction === 'chain') {
      const record = await chainSwap.createChainSwap(client, { key: state.chain, amount: state.amount, destination: state.destination!, refundAddress: state.refundAddress! });
      store.save(record);
      current = record;
      startProgress(record);
      chainSwap.showChainLockup(tools, record);
      void follow(record);
    } else {
      const record = await client.createSubmarine({ currency: state.chain, invoice: state.invoice! });
      record.destination = state.destination;
      store.save(record);
      current = record;
      showAddress(record);
      void follow(record);
    }
    renderHistory();
  } catch (error) {
    showError(`The swap was not created: ${errorText(error)}`);
  } finally {
    creating = false;
    button.textContent = 'Create swap';
    button.disabled = !$<HTMLInputElement>('rescue-saved').checked;
  }
}

function startProgress(record: { id: string }): void {
  $('steps').replaceChildren();
  $('swap-id').textContent = record.id;
  $('progress').hidden = false;
}

function showInvoice(record: ReverseRecord): void {
  startProgress(record);
  $('pay-invoice-amount').textContent = sat(record.invoiceAmount);
  $('pay-invoice-destination').textContent = state.destination ?? '';
  drawQr($('invoice-qr'), record.invoice.toUpperCase());
  $('invoice-text').textContent = record.invoice;
  show('view-pay-invoice');
}

function showAddress(record: SubmarineRecord): void {
  startProgress(record);
  const btc = (record.expectedAmount / 1e8).toFixed(8);
  $('pay-chain-amount').textContent = `${sat(record.expectedAmount)} (${btc} ${record.currency})`;
  $('pay-chain-then').textContent = 'Ferry then pays your invoice.';
  $('address-text').textContent = record.lockupAddress;
  drawQr($('address-qr'), record.bip21 ?? `${record.currency === 'L-BTC' ? 'liquidnetwork' : 'bitcoin'}:${record.lockupAddress}?amount=${btc}`);
  show('view-pay-chain');
}

/** The swaps this page follows now: each once, whichever view shows. */
const following = new Set<string>();

async function follow(record: SwapRecord): Promise<void> {
  if (following.has(record.id)) return;
  following.add(record.id);
  const shown = () => current?.id === record.id;
  const stream = client.statusStream();
  // While the live link is down the SDK polls the swap's status: the page says which it is on.
  let ended = false;
  stream.on('connection', (connection) => {
    if (!ended && shown()) $('connection').textContent = connection === 'open' ? 'live updates' : connection === 'connecting' ? 'connecting…' : 'checking every few seconds';
  });
  stream.on('error', () => undefined);
  let claim: { txid: string; amount: bigint } | undefined;
  try {
    const result = await followSwap(client, record, {
      stream,
      destination: async (currency) => {
        // a chain swap refunds on the chain it was sent from, to the refund address typed for it
        if (record.type === 'chain' && currency === record.currency) {
          const refundAddress = chainSwap.refundAddressOf(record);
          if (refundAddress) return refundAddress;
          throw new Error('no refund address was given');
        }
        if (record.destination) return record.destination;
        throw new Error('no address to pay to was given');
      },
      onEvent: (event) => {
        if (event.type === 'claimed') claim = event.claim;
        if (event.type === 'refunded') claim = event.refund;
        if (shown()) describe(record, event);
        renderHistory();
      },
    });
    ended = true;
    if (shown()) {
      $('connection').textContent = 'ended';
      finish(record, result.success, result.message, claim);
    }
  } catch (error) {
    if (shown()) step(`Following the swap stopped: ${errorText(error)}. It is kept in this browser: Resume it below.`, 'bad');
  } finally {
    following.delete(record.id);
    stream.close();
    renderHistory();
  }
}

function finish(record: SwapRecord, success: boolean, message: string | undefined, spend?: { txid: string; amount: bigint }): void {
  $('view-pay-invoice').hidden = true;
  $('view-pay-chain').hidden = true;
  const chainEnd = record.type === 'chain' ? chainSwap.chainEnding(record, success, spend) : undefined;
  if (chainEnd) {
    $('done-title').textContent = chainEnd.title;
    $('done-text').textContent = chainEnd.text;
  } else if (record.type === 'reverse' && success && spend) {
    $('done-title').textContent = `Received ${sat(spend.amount)}`;
    $('done-text').textContent = `The coins are at ${record.destination ?? state.destination}.`;
  } else if (record.type === 'submarine' && success) {
    $('done-title').textContent = 'Invoice paid';
    $('done-text').textContent = `${sat(record.invoiceAmount)} paid over Lightning.`;
  } else if (spend) {
    $('done-title').textContent = `Refunded ${sat(spend.amount)}`;
    $('done-text').textContent = `Ferry could not complete the swap (${record.status}); your coins went back to ${record.destination}.`;
  } else {
    $('done-title').textContent = success ? 'Swap finished' : 'The swap ended';
    $('done-text').textContent = message ?? record.status ?? '';
  }
  $('done-txid').textContent = spend?.txid ?? '';
  $('done-tx-line').hidden = spend === undefined;
  show('view-done');
}

/** Whether a stored swap may still need this page: not in one of its type's final statuses. */
function isOpen(record: SwapRecord): boolean {
  const status = record.status ?? 'swap.created';
  const final = FINAL_STATUSES[record.type];
  return !final.success.includes(status) && !final.failure.includes(status);
}

/**
 * Shows a stored swap again and follows it to its end: after a reload, a closed tab or a lost connection, a swap the
 * user already paid or funded is claimed (or co-signed) all the same.
 */
function resume(record: SwapRecord): void {
  current = record;
  state.chain = record.type === 'chain' ? chainSwap.chainPairKey(record.currency, record.claimSide.currency) : record.currency;
  state.destination = record.destination;
  if (record.type === 'reverse') showInvoice(record);
  else if (record.type === 'submarine') showAddress(record);
  else {
    startProgress(record);
    chainSwap.showChainLockup(tools, record);
  }
  step('Resumed from this browser\'s storage.');
  void follow(record);
}

/** A stored RBTC swap in the history: Resume reconnects the wallet with the swap's account. */
function contractItem(record: ContractRecord): HTMLLIElement {
  const item = document.createElement('li');
  const when = new Date(record.createdAt).toLocaleString();
  const kind = record.type === 'reverse' ? 'Lightning → RBTC' : 'RBTC → Lightning';
  const spent = record.type === 'reverse' ? record.claim : record.refund;
  const status = `${record.status ?? 'created'}${record.type === 'submarine' && spent ? ', refunded' : ''}`;
  const open = isOpenContract(record);
  item.append(`${when} · ${kind} · ${sat(record.invoiceAmount)} · ${status}${open ? ' (open)' : ''} · `);
  appendIdAndResume(item, record.id, open, () => evmWallet().then((evm) => evm.resumeContractSwap(evmTools, store.loadContract(record.id))));
  return item;
}

/** A contract swap's id in its history line and, while it is open and not the one shown, its Resume button. */
function appendIdAndResume(item: HTMLLIElement, swapId: string, open: boolean, resume: () => Promise<void>): void {
  const id = document.createElement('code');
  id.textContent = swapId;
  item.append(id);
  if (!open || swapId === currentContract) return;
  const button = document.createElement('button');
  button.type = 'button';
  button.className = 'secondary small';
  button.textContent = 'Resume';
  button.setAttribute('aria-label', `Resume swap ${swapId}`);
  button.addEventListener('click', () => {
    showError(undefined);
    resume().catch((error: unknown) => showError(`The swap was not resumed: ${errorText(error)}`));
  });
  item.append(' ', button);
}

/** A stored chain swap with an RBTC side in the history: Resume reconnects the wallet with the swap's account. */
function contractChainItem(record: ContractChainRecord): HTMLLIElement {
  const item = document.createElement('li');
  const when = new Date(record.createdAt).toLocaleString();
  const ours = record.contractSide.lockedBy === 'user' ? record.contractSide : record.utxoSide;
  const status = `${record.status ?? 'created'}${ours.refund ? ', refunded' : ''}`;
  const open = isOpenContractChain(record);
  item.append(`${when} · ${record.from} → ${record.to} · ${sat(record.userLockAmount)} · ${status}${open ? ' (open)' : ''} · `);
  appendIdAndResume(item, record.id, open, () => evmChainSwap().then((evm) => evm.resumeContractChainSwap(evmTools, store.loadContractChain(record.id))));
  return item;
}

/** The chain swap with an RBTC side the page shows now, if it is one. */
function shownContractChain(): ContractChainRecord | undefined {
  return currentContract === undefined ? undefined : store.listContractChains().find((record) => record.id === currentContract);
}

function renderHistory(): void {
  const swaps = store.list().reverse();
  const contracts = store.listContracts().reverse();
  const contractChains = store.listContractChains().reverse();
  $('history-empty').hidden = swaps.length + contracts.length + contractChains.length > 0;
  $('history-list').replaceChildren(
    ...contractChains.map(contractChainItem),
    ...contracts.map(contractItem),
    ...swaps.map((record) => {
      const item = document.createElement('li');
      const when = new Date(record.createdAt).toLocaleString();
      const kind = record.type === 'reverse' ? `Lightning → ${record.currency}` : record.type === 'submarine' ? `${record.currency} → Lightning` : `${record.currency} → ${record.claimSide.currency}`;
      const amount = sat(record.type === 'chain' ? record.userLockAmount : record.invoiceAmount);
      const refunded = 'refund' in record && record.refund !== undefined;
      const status = refunded ? `${record.status}, refunded` : (record.status ?? 'created');
      const open = isOpen(record);
      item.append(`${when} · ${kind} · ${amount} · ${status}${open ? ' (open)' : ''} · `);
      const id = document.createElement('code');
      id.textContent = record.id;
      item.append(id);
      if (open && record.id !== current?.id) {
        const button = document.createElement('button');
        button.type = 'button';
        button.className = 'secondary small';
        button.textContent = 'Resume';
        button.setAttribute('aria-label', `Resume swap ${record.id}`);
        button.addEventListener('click', () => resume(store.load(record.id)));
        item.append(' ', button);
      }
      return item;
    }),
  );
}

function reset(): void {
  current = undefined;
  currentContract = undefined;
  state.destination = undefined;
  state.invoice = undefined;
  state.refundAddress = undefined;
  state.account = undefined;
  $<HTMLInputElement>('destination').value = '';
  $<HTMLTextAreaElement>('invoice-input').value = '';
  $<HTMLInputElement>('refund-address').value = '';
  for (const field of ['chain-destination', 'chain-refund-address']) $<HTMLInputElement>(field).value = '';
  $('progress').hidden = true;
  show('view-choose');
}

/** A chain swap chosen: with an RBTC side, the wallet's account first (that side's address); then the others. */
async function askChainAddresses(): Promise<void> {
  const { from, to } = chainSwap.sidesOf(state.chain);
  const contract = [from, to].find(isContractCurrency);
  state.account = undefined;
  if (contract !== undefined) {
    const address = await askWallet();
    if (address === undefined) return;
    state.account = { currency: contract, address };
  }
  chainSwap.askChainAddresses(tools, state.chain, network, state.account);
}

/** An RBTC swap chosen: the wallet's account first, then the invoice (submarine) or the rescue key (reverse). */
async function chooseContract(): Promise<void> {
  const account = await askWallet();
  if (account === undefined) return;
  state.destination = account;
  const refundField = $('refund-address');
  const refundRow = [refundField, $('refund-address-label'), $('refund-address-error')];
  if (state.direction === 'reverse') return showRescue();
  for (const element of refundRow) element.hidden = true;
  $('invoice-input-title').textContent = `Which invoice should be paid? (a refund goes back to ${account})`;
  show('view-invoice-input');
  $('invoice-input').focus();
}

function wire(): void {
  addScanButton('invoice-input', 'invoice');
  addScanButton('destination', 'address');
  $('choose-form').addEventListener('change', onChoiceChanged);
  $('chain').addEventListener('change', () => {
    state.chain = $<HTMLSelectElement>('chain').value;
    quote();
  });
  $('amount').addEventListener('input', () => quote());
  $('choose-form').addEventListener('submit', (event) => {
    event.preventDefault();
    if (!quote()) return $('amount').focus();
    if (state.direction !== 'chain' && isContractCurrency(state.chain)) return void chooseContract();
    if (state.direction === 'chain') {
      void askChainAddresses();
    } else if (state.direction === 'reverse') {
      $('destination-label').textContent = `Your ${chainName(state.chain)} address (${network})`;
      show('view-destination');
      $('destination').focus();
    } else {
      $('refund-address-label').textContent = `Your ${chainName(state.chain)} address for a refund, if the swap fails (${network})`;
      for (const id of ['refund-address', 'refund-address-label', 'refund-address-error']) $(id).hidden = false;
      $('invoice-input-title').textContent = 'Which invoice should be paid?';
      show('view-invoice-input');
      $('invoice-input').focus();
    }
  });
  for (const field of ['destination', 'refund-address', 'chain-destination', 'chain-refund-address']) $(field).addEventListener('input', () => ($(`${field}-error`).textContent = ''));
  $('destination-form').addEventListener('submit', (event) => {
    event.preventDefault();
    state.destination = checkAddress('destination');
    if (state.destination) showRescue();
    else $('destination').focus();
  });
  $('chain-addresses-form').addEventListener('submit', (event) => {
    event.preventDefault();
    const addresses = chainSwap.chainAddresses(tools, state.chain, state.account);
    if (addresses === undefined) return;
    state.destination = addresses.destination;
    state.refundAddress = addresses.refundAddress;
    showRescue();
  });
  $('invoice-input-form').addEventListener('submit', (event) => {
    event.preventDefault();
    const invoice = $<HTMLTextAreaElement>('invoice-input').value.trim().replace(/^lightning:/i, '');
    if (!/^ln[a-z0-9]+$/i.test(invoice)) {
      $('invoice-input-error').textContent = 'Paste a BOLT11 invoice (it starts with ln).';
      return $('invoice-input').focus();
    }
    $('invoice-input-error').textContent = '';
    state.invoice = invoice;
    if (isContractCurrency(state.chain)) return showRescue(); // a refund goes back to the wallet's account
    // Where a refund goes if Ferry cannot pay: followed in this page, a failed swap is refunded there by itself.
    state.destination = checkAddress('refund-address');
    if (state.destination === undefined) return $('refund-address').focus();
    showRescue();
  });
  for (const back of document.querySelectorAll('button.back')) back.addEventListener('click', () => show('view-choose'));
  $('rescue-download').addEventListener('click', () => {
    const text = `Ferry rescue key (${location.origin}, ${network})\n\n${store.rescueKey().mnemonic}\n`;
    download('ferry-rescue-key.txt', new Blob([text], { type: 'text/plain' }));
  });
  $('rescue-saved').addEventListener('change', () => ($<HTMLButtonElement>('create').disabled = !$<HTMLInputElement>('rescue-saved').checked));
  $('create').addEventListener('click', () => void create());
  $('copy-invoice').addEventListener('click', () => void copy($<HTMLButtonElement>('copy-invoice'), $('invoice-text').textContent ?? ''));
  $('copy-address').addEventListener('click', () => void copy($<HTMLButtonElement>('copy-address'), $('address-text').textContent ?? ''));
  $('copy-amount').addEventListener('click', () => {
    const contractChain = shownContractChain();
    if (contractChain !== undefined) return void copy($<HTMLButtonElement>('copy-amount'), (contractChain.userLockAmount / 1e8).toFixed(8));
    if (current?.type === 'submarine' || current?.type === 'chain') {
      const amount = current.type === 'chain' ? current.userLockAmount : current.expectedAmount;
      void copy($<HTMLButtonElement>('copy-amount'), (amount / 1e8).toFixed(8));
    }
  });
  $('refund-download').addEventListener('click', () => {
    const contractChain = shownContractChain();
    if (contractChain?.utxoSide.lockedBy === 'user') return download(`ferry-refund-${contractChain.id}.json`, refundFileBlob(refundFileOf({ id: contractChain.id, type: 'chain', ...contractChain.utxoSide }), 'json'));
    if (current?.type === 'submarine' || current?.type === 'chain') download(`ferry-refund-${current.id}.json`, refundFileBlob(refundFileOf(current), 'json'));
  });
  $('again').addEventListener('click', reset);
  initRefundView({
    client,
    network,
    show,
    whyNot,
    chainName,
    sat,
    servesRbtc: () => pairs.submarine.RBTC !== undefined,
    wallet: () => import('./refund-wallet.ts').then((wallet) => wallet.findWalletRefunds(evmTools)),
  });
}

async function main(): Promise<void> {
  wire();
  renderHistory();
  try {
    await loadPairs();
  } catch (error) {
    showError(`Cannot load the swaps Ferry offers: ${errorText(error)}`);
    return;
  }
  fillChains();
  quote();
  // The newest swap still open is shown and followed again; older open ones wait for their Resume button.
  const open = store.list().filter(isOpen).at(-1);
  if (open) resume(open);
  // When the page became usable, in ms since navigation began: what the browser test reports as time to interactive.
  document.body.dataset.readyMs = String(Math.round(performance.now()));
  document.body.dataset.ready = 'true';
}

void main();
