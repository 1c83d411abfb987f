/// <reference lib="dom" />
// Chain → chain swaps in the swap page (BTC ⇄ L-BTC among the pairs of GET /v2/swap/chain): the user locks on one
// chain, Ferry locks on the other, and this browser claims Ferry's lockup with the swap's preimage (with Ferry
// through the key path, alone by the script if Ferry does not co-sign); Ferry's own claim then takes the user's
// lockup. Kept apart from app.ts, which calls in here for what differs from the other two swap types: the pair list,
// the quote, the two addresses (the claim's on the receiving chain, a refund's on the sending one), the lockup to
// fund, and the words of each status. Following, history and resuming are app.ts's, the same for every type.
import { type ChainRecord, type FollowEvent, type SwapClient } from '@ferry/sdk/client/core.js';

/** An entry of GET /v2/swap/chain, as far as the page reads it. */
export interface ChainPair {
  rate: number;
  limits: { minimal: number; maximal: number };
  fees: { percentage: number; minerFees: { server: number; user: { claim: number; lockup: number } } };
}

/** What app.ts lends this file: its element lookup, views, address check (for a given chain) and QR drawing. */
export interface PageTools {
  $: <T extends HTMLElement = HTMLElement>(id: string) => T;
  show(view: string): void;
  checkAddress(field: string, currency: string): string | undefined;
  drawQr(container: HTMLElement, text: string): void;
  chainName(currency: string): string;
}

const sat = (n: number | bigint): string => `${Number(n).toLocaleString('en-US')} sat`;

/** A pair's key in the page's pair list and its <select>: `from/to`. */
export const chainPairKey = (from: string, to: string): string => `${from}/${to}`;
export function sidesOf(key: string): { from: string; to: string } {
  const [from, to] = key.split('/');
  return { from: from ?? '', to: to ?? '' };
}

/** The chain pairs Ferry serves between chains this page can swap on, by `from/to`. */
export async function loadChainPairs(client: SwapClient, swappable: (currency: string) => boolean): Promise<Record<string, ChainPair>> {
  const pairs: Record<string, ChainPair> = {};
  for (const [from, byTo] of Object.entries(await client.api.chainPairs())) {
    for (const [to, pair] of Object.entries(byTo)) if (from !== to && swappable(from) && swappable(to)) pairs[chainPairKey(from, to)] = pair as ChainPair;
  }
  return pairs;
}

export const chainPairLabel = (key: string): string => `${sidesOf(key).from} → ${sidesOf(key).to}`;

/**
 * The quote for locking `amount` sat on the sending chain: Ferry's fee, the network fees taken from the swap (Ferry's
 * lockup and the user's claim), and about what arrives — the SDK checks Ferry's actual lockup amount on creation.
 */
export function quoteChain(pair: ChainPair, amount: number): { fee: number; miner: number; receive: number } {
  const converted = Math.floor(amount * pair.rate);
  const fee = Math.ceil((converted * pair.fees.percentage) / 100);
  const miner = pair.fees.minerFees.server + pair.fees.minerFees.user.claim;
  return { fee, miner, receive: Math.max(0, converted - fee - miner) };
}

export const CHAIN_WORDS: Record<string, string> = {
  'swap.created': 'Swap created: waiting for your coins at the address above.',
  'transaction.mempool': 'Your coins were seen on chain (not yet confirmed).',
  'transaction.confirmed': 'Your coins are confirmed: Ferry locks its side now.',
  'transaction.server.mempool': "Ferry locked the coins for you on the other chain (not yet confirmed): claiming them now.",
  'transaction.server.confirmed': "Ferry's coins are confirmed on the other chain.",
  'transaction.claim.pending': 'Ferry asks to take your coins: this browser checks its claim and co-signs.',
  'transaction.claimed': 'Done: you claimed your coins and Ferry took the ones you sent.',
  'transaction.lockupFailed': 'The coins sent do not match the swap: a new amount is asked for, or they are refunded.',
  'transaction.failed': 'Ferry could not lock its side: your coins will be refunded.',
  'transaction.refunded': 'Ferry took its coins back after the timeout: your coins will be refunded.',
  'swap.expired': 'The swap expired.',
};

/** What a chain swap's `quoted` event says: Ferry's new amount for coins of another amount than agreed. */
export const quotedWords = (event: FollowEvent & { type: 'quoted' }): string =>
  `You sent another amount than agreed: Ferry offered ${sat(event.amount)} for it, and this browser accepted.`;

// The refund address is the page's own to keep (the record holds one destination, the claim's): kept beside it.
const refundKey = (id: string): string => `ferry-page/chain-refund/${id}`;
export const refundAddressOf = (record: ChainRecord): string | undefined => localStorage.getItem(refundKey(record.id)) ?? undefined;

/**
 * The addresses typed for a chain swap, each checked for its chain and the network: the destination on the
 * receiving chain, the refund address on the sending one. Undefined (the reason beside the field) if either fails.
 * With an RBTC side, that side's address is the wallet's `account`, not typed.
 */
export function chainAddresses(tools: PageTools, key: string, account?: { currency: string; address: string }): { destination: string; refundAddress: string } | undefined {
  const { from, to } = sidesOf(key);
  const destination = account?.currency === to ? account.address : tools.checkAddress('chain-destination', to);
  const refundAddress = account?.currency === from ? account.address : tools.checkAddress('chain-refund-address', from);
  if (destination === undefined) tools.$('chain-destination').focus();
  else if (refundAddress === undefined) tools.$('chain-refund-address').focus();
  return destination === undefined || refundAddress === undefined ? undefined : { destination, refundAddress };
}

/** Labels the address fields for the pair chosen (only the UTXO side's with an RBTC side), and shows their view. */
export function askChainAddresses(tools: PageTools, key: string, network: string, account?: { currency: string; address: string }): void {
  const { from, to } = sidesOf(key);
  const rows = (field: string) => [field, `${field}-label`, `${field}-error`].map((id) => tools.$(id));
  for (const element of rows('chain-destination')) element.hidden = account?.currency === to;
  for (const element of rows('chain-refund-address')) element.hidden = account?.currency === from;
  tools.$('chain-addresses-title').textContent =
    account === undefined ? 'Where should the coins go?' : `Where should the coins go? (${account.currency} ${account.currency === to ? 'arrives in' : 'comes back to'} your wallet's account ${account.address})`;
  tools.$('chain-destination-label').textContent = `Your ${tools.chainName(to)} address, to receive (${network})`;
  tools.$('chain-refund-address-label').textContent = `Your ${tools.chainName(from)} address for a refund, if the swap fails (${network})`;
  tools.show('view-chain-addresses');
  tools.$(account?.currency === to ? 'chain-refund-address' : 'chain-destination').focus();
}

/** Creates the swap (the SDK checks Ferry's answer on both chains first) and keeps where its coins go. */
export async function createChainSwap(
  client: SwapClient,
  request: { key: string; amount: number; destination: string; refundAddress: string },
): Promise<ChainRecord> {
  const { from, to } = sidesOf(request.key);
  const record = await client.createChain({ from, to, userLockAmount: request.amount });
  localStorage.setItem(refundKey(record.id), request.refundAddress);
  record.destination = request.destination;
  return record;
}

/** The lockup to fund: address and exact amount as text and as a QR code (BIP21), and what Ferry locks for it. */
export function showChainLockup(tools: PageTools, record: ChainRecord): void {
  const coins = (record.userLockAmount / 1e8).toFixed(8);
  tools.$('pay-chain-amount').textContent = `${sat(record.userLockAmount)} (${coins} ${record.currency})`;
  tools.$('pay-chain-then').textContent = `Ferry then locks ${sat(record.quote?.amount ?? record.serverLockAmount)} on ${record.claimSide.currency}, which this browser claims to ${record.destination ?? 'your address'}.`;
  tools.$('address-text').textContent = record.lockupAddress;
  tools.drawQr(tools.$('address-qr'), record.bip21 ?? `${record.currency === 'L-BTC' ? 'liquidnetwork' : 'bitcoin'}:${record.lockupAddress}?amount=${coins}`);
  tools.show('view-pay-chain');
}

/** The end of a chain swap in words, for the done view. */
export function chainEnding(record: ChainRecord, success: boolean, spend: { txid: string; amount: bigint } | undefined): { title: string; text: string } | undefined {
  if (success && record.claim !== undefined && spend !== undefined) {
    return { title: `Received ${sat(spend.amount)}`, text: `The coins are on ${record.claimSide.currency} at ${record.destination}.` };
  }
  if (spend !== undefined && record.refund !== undefined) {
    return { title: `Refunded ${sat(spend.amount)}`, text: `Ferry could not complete the swap (${record.status}); your coins went back to ${refundAddressOf(record) ?? 'your refund address'}.` };
  }
  return undefined;
}
