// `ferry swap`: submarine, reverse and chain swaps from the command line, on top of the client SDK (src/client), on
// Bitcoin (BTC) or Liquid (L-BTC): --from picks a submarine swap's chain, --to a reverse swap's, both a chain swap's.
// Submarine and reverse swaps on RBTC (a contract chain) are in swap-contract.ts.
import { ServiceUnreachableError, VerificationError } from '@ferry/sdk/client/errors.js';
import { followSwap, type FollowResult } from '@ferry/sdk/client/follow.js';
import { noteStatus, type SwapRecord } from '@ferry/sdk/client/records.js';
import { SWAP_CURRENCIES, swapChain } from '@ferry/sdk/client/chains/index.js';
import { readRefundFile } from '@ferry/sdk/client/node/refund-files.js';
import type { RefundResult } from '@ferry/sdk/client/refund.js';
import { FINAL_STATUSES } from '@ferry/sdk/client/types.js';
import type { FerryConfig } from '../config/index.ts';
import { UsageError } from './usage-error.ts';
import { btc, createOutput, describeStatus, printFollowEvent, type Output } from './swap-output.ts';
import { currencyFlag, stringFlag, swapContext, type Flags, type SwapContext } from './swap-context.ts';
import { rescueKeyCommand, restoreCommand } from './swap-restore.ts';
import { findDirectPayment, printDirectPayment } from './swap-direct.ts';
import { isContractCurrency } from '@ferry/sdk/client/chains/contract.js';
import { evmAccountGiven } from './swap-context.ts';

/** RBTC's commands (ethers and the contract client), loaded only by a command that meets a contract swap. */
const contractCommands = () => import('./swap-contract.ts');

export const swapUsage = `swaps (the client side; keys and preimages stay in the client store):
  ferry swap reverse --amount SATS [--to C] [--address A]
                                                   Lightning → chain C: prints an invoice to pay, then claims on chain
  ferry swap submarine --invoice INVOICE [--from C] [--no-direct]
                                                   chain C → Lightning: prints the address and amount to send;
                                                   an invoice whose receiver takes C on chain directly (a magic
                                                   routing hint, its BIP21 checked) is paid there: no swap is
                                                   created (--no-direct: swap anyway)
  ferry swap submarine --legacy --invoice INVOICE [--from BTC|L-BTC]
                                                   the same as an API v1 swap (redeem script, no key path): prints
                                                   the address, amount and refund file (refund: --file), then exits
  ferry swap chain --from C --to D [--amount SATS | --server-amount SATS] [--address A] [--refund-address R]
                                                   chain C → chain D: prints the address to send to, claims on D
                                                   (no amount: send any amount within the limits; --no-quote: refund
                                                   a lockup of another amount instead of accepting the new quote)
  ferry swap status ID [--follow]                  the swap's status (--follow: every change until it ends)
  ferry swap claim ID [--address A]                resume a swap: claim a reverse or chain swap, co-sign a submarine claim
  ferry swap refund ID | --file FILE [--address A] [--lockup TXID]   refund a failed submarine or chain swap
  ferry swap refund --recover [--from RBTC]        refund every lockup of your EVM account still in the swap contract,
                                                   found from its Lockup logs (no client store needed)
  ferry swap list                                  the swaps in the client store
  ferry swap restore [--mnemonic WORDS | --xpub X]  rebuild the store from the rescue key (default: the store's own), then
                                                   claim or refund every restored swap (--xpub of another key: list only)
  ferry swap restore --evm-key HEX | --evm-mnemonic WORDS   the RBTC swaps of that EVM account, found by its address
                                                   (signed proof), back in the store, then claimed or refunded
  ferry swap rescue-key                            the store's rescue key (a mnemonic): every swap's key derives from it
  swap options: --service URL (or FERRY_SERVICE_URL; default http://127.0.0.1:9001), --client-dir DIR (or
  FERRY_CLIENT_DIR; default ~/.ferry-client), --json (one JSON object per line), --no-wait (exit after
  creating), --script-path (do not ask the service to sign), --no-refund (leave a failed swap for
  \`ferry swap refund\`), --bitcoin-rpc URL / --elements-rpc URL (a Bitcoin / Elements node for BTC / L-BTC chain
  data and broadcasts instead of the service), --fee-rate SAT_PER_VBYTE. C is BTC (the default), L-BTC (Liquid) or,
  for submarine and reverse swaps, RBTC. Claims and refunds pay to --address (for L-BTC a confidential Liquid
  address), else to the devnet's user wallet.
  RBTC: the submarine swap is locked at once from your EVM account, the reverse swap claimed into it, refunds paid
  back to it: --evm-key HEX (or FERRY_EVM_KEY) or --evm-mnemonic "WORDS" [--evm-account N] (or FERRY_EVM_MNEMONIC;
  m/44'/60'/0'/0/N), --evm-rpc URL (or FERRY_EVM_RPC) an EVM node; default: the devnet's user account and anvil.
`;

function positiveInteger(text: string | undefined, what: string): number {
  if (text === undefined || !/^\d+$/.test(text) || Number(text) <= 0 || !Number.isSafeInteger(Number(text))) {
    throw new UsageError(`${what} must be a positive integer`);
  }
  return Number(text);
}

/** --fee-rate, at least the relay floor of the swap's chain (1 sat/vB on Bitcoin, 0.1 on Liquid). */
function feeRateOf(flags: Flags, currency: string): number | undefined {
  const text = stringFlag(flags, 'fee-rate');
  if (text === undefined) return undefined;
  const rate = Number(text);
  const { minFeeRate } = swapChain(currency);
  if (!(rate >= minFeeRate)) throw new UsageError(`--fee-rate must be a number of sat/vbyte, at least ${minFeeRate} on ${currency}`);
  return rate;
}

/** A flag that belongs to the other kind of swap. */
function refuseFlag(flags: Flags, name: string, why: string): void {
  if (flags[name] !== undefined) throw new UsageError(`--${name}: ${why}`);
}

/** Follows a swap to its end, printing each step; Ctrl-C stops following (the swap is safe in the store). */
async function follow(context: SwapContext, record: SwapRecord, flags: Flags, output: Output): Promise<number> {
  const feeRate = feeRateOf(flags, record.currency);
  const client = context.client(record.serviceUrl);
  const stream = client.statusStream({ pollIntervalMs: 2_000 });
  let lastConnectionProblem = '';
  stream.on('error', (error) => {
    if (error.message !== lastConnectionProblem) output.problem(`status: ${error.message} (retrying)`);
    lastConnectionProblem = error.message;
  });
  const stop = new AbortController();
  const onSignal = () => stop.abort();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  let result: FollowResult;
  try {
    result = await followSwap(client, record, {
      stream,
      // A chain swap claims on its `to` chain (--address) and refunds on its `from` chain (--refund-address).
      destination: (currency) => context.destination(currency, record.type === 'chain' && currency === record.currency ? 'refund-address' : 'address'),
      acceptQuote: flags['no-quote'] !== true,
      cooperative: flags['script-path'] !== true,
      refund: flags['no-refund'] !== true,
      feeRate,
      signal: stop.signal,
      onEvent: (event) => printFollowEvent(output, record, event),
    });
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    stream.close();
  }
  const fields = { id: record.id, status: result.status, success: result.success, message: result.message };
  if (result.stopped) {
    output.event('stopped', fields, `swap ${record.id}: stopped following; resume with: ferry swap claim ${record.id}`);
    return 130;
  }
  const text = result.success ? `swap ${record.id}: done (${result.status})` : `swap ${record.id}: ended with ${result.status}${result.message ? `: ${result.message}` : ''}`;
  output.event('done', fields, text);
  return result.success ? 0 : 1;
}

/** A v1 swap: created, checked and its refund file written; the service claims it alone, so nothing is followed. */
async function legacySubmarine(context: SwapContext, output: Output, invoice: string, currency: string): Promise<number> {
  if (isContractCurrency(currency)) throw new UsageError(`--legacy: ${currency} swaps have no legacy outputs (a v1 ${currency} swap is its contract swap)`);
  const swap = await context.client().createLegacySubmarine({ invoice, currency });
  output.event(
    'created',
    {
      id: swap.id,
      type: 'submarine',
      legacy: true,
      currency: swap.currency,
      address: swap.address,
      redeemScript: swap.redeemScript,
      expectedAmount: swap.expectedAmount,
      amountBtc: btc(swap.expectedAmount),
      bip21: swap.bip21,
      invoiceAmount: swap.invoiceAmount,
      timeoutBlockHeight: swap.timeoutBlockHeight,
      refundFiles: swap.refundFiles,
    },
    [
      `swap ${swap.id} created (legacy submarine): the service pays your invoice of ${swap.invoiceAmount} sat once you send`,
      `  ${swap.expectedAmount} sat (${btc(swap.expectedAmount)} ${swap.currency}) to ${swap.address}`,
      `  refund file: ${swap.refundFiles?.json} (and .png): ferry swap refund --file FILE from block ${swap.timeoutBlockHeight}`,
      `  follow it with: ferry swap status ${swap.id} --follow`,
    ].join('\n'),
  );
  return 0;
}

async function submarine(context: SwapContext, flags: Flags, config: FerryConfig, output: Output): Promise<number> {
  const invoice = stringFlag(flags, 'invoice');
  if (invoice === undefined) throw new UsageError('usage: ferry swap submarine --invoice INVOICE [--from BTC|L-BTC|RBTC]');
  refuseFlag(flags, 'to', 'a submarine swap pays Lightning; --from names the chain it is paid from');
  const currency = currencyFlag(flags, 'from');
  if (isContractCurrency(currency)) {
    if (flags.legacy === true) return legacySubmarine(context, output, invoice, currency);
    return (await contractCommands()).contractSubmarine(context, flags, config, output, invoice, currency);
  }
  if (flags['no-direct'] !== true) {
    const direct = await findDirectPayment(context, invoice, currency);
    if (direct !== undefined) {
      printDirectPayment(output, direct, currency, invoice);
      return 0;
    }
  }
  if (flags.legacy === true) return legacySubmarine(context, output, invoice, currency);
  context.checkAddress(currency);
  feeRateOf(flags, currency);
  const record = await context.client().createSubmarine({ invoice, currency });
  output.event(
    'created',
    {
      id: record.id,
      type: record.type,
      currency: record.currency,
      address: record.lockupAddress,
      expectedAmount: record.expectedAmount,
      amountBtc: btc(record.expectedAmount),
      bip21: record.bip21,
      invoiceAmount: record.invoiceAmount,
      timeoutBlockHeight: record.timeoutBlockHeight,
      refundFiles: record.refundFiles,
    },
    [
      `swap ${record.id} created (submarine): the service pays your invoice of ${record.invoiceAmount} sat once you send`,
      `  ${record.expectedAmount} sat (${btc(record.expectedAmount)} ${record.currency}) to ${record.lockupAddress}`,
      `  refund file: ${record.refundFiles?.json} (and .png); a refund without the service is possible from block ${record.timeoutBlockHeight}`,
    ].join('\n'),
  );
  return flags['no-wait'] === true ? 0 : follow(context, record, flags, output);
}

async function reverse(context: SwapContext, flags: Flags, config: FerryConfig, output: Output): Promise<number> {
  const amount = stringFlag(flags, 'amount');
  const onchain = stringFlag(flags, 'onchain-amount');
  if ((amount === undefined) === (onchain === undefined)) throw new UsageError('usage: ferry swap reverse --amount SATS (or --onchain-amount SATS) [--to BTC|L-BTC|RBTC]');
  refuseFlag(flags, 'from', 'a reverse swap is paid from Lightning; --to names the chain it pays to');
  const currency = currencyFlag(flags, 'to');
  const request = amount !== undefined ? { invoiceAmount: positiveInteger(amount, '--amount') } : { onchainAmount: positiveInteger(onchain, '--onchain-amount') };
  if (isContractCurrency(currency)) return (await contractCommands()).contractReverse(context, flags, config, output, request, currency);
  feeRateOf(flags, currency);
  // Ask where the coins go before anything is created: a missing address should fail now, not after paying.
  const destination = await context.destination(currency);
  const record = await context.client().createReverse({ ...request, currency });
  record.destination = destination;
  context.store.save(record);
  output.event(
    'created',
    {
      id: record.id,
      type: record.type,
      currency: record.currency,
      invoice: record.invoice,
      invoiceAmount: record.invoiceAmount,
      onchainAmount: record.onchainAmount,
      destination,
      timeoutBlockHeight: record.timeoutBlockHeight,
    },
    [
      `swap ${record.id} created (reverse): pay this invoice of ${record.invoiceAmount} sat`,
      `  ${record.invoice}`,
      `  the service then locks ${record.onchainAmount} sat on chain (${record.currency}), claimed (minus the claim fee) to ${destination}`,
    ].join('\n'),
  );
  return flags['no-wait'] === true ? 0 : follow(context, record, flags, output);
}

async function chainSwap(context: SwapContext, flags: Flags, output: Output): Promise<number> {
  if ([flags.from, flags.to].some((currency) => typeof currency === 'string' && isContractCurrency(currency))) {
    throw new UsageError('chain swaps with RBTC are not supported by ferry swap yet');
  }
  const from = currencyFlag(flags, 'from', SWAP_CURRENCIES);
  const to = currencyFlag(flags, 'to', SWAP_CURRENCIES);
  if (from === to) throw new UsageError('usage: ferry swap chain --from BTC|L-BTC --to L-BTC|BTC (two different chains)');
  const user = stringFlag(flags, 'amount');
  const server = stringFlag(flags, 'server-amount');
  if (user !== undefined && server !== undefined) throw new UsageError('give --amount (what you send) or --server-amount (what you receive), not both');
  const request = {
    from,
    to,
    ...(user !== undefined && { userLockAmount: positiveInteger(user, '--amount') }),
    ...(server !== undefined && { serverLockAmount: positiveInteger(server, '--server-amount') }),
  };
  feeRateOf(flags, from);
  feeRateOf(flags, to);
  context.checkAddress(from, 'refund-address');
  // Where the coins go, asked before anything is created: a missing address should fail now, not after locking.
  const destination = await context.destination(to);
  const record = await context.client().createChain(request);
  record.destination = destination;
  context.store.save(record);
  const amount = record.userLockAmount > 0 ? `${record.userLockAmount} sat (${btc(record.userLockAmount)} ${from})` : `any amount of ${from} within the limits`;
  output.event(
    'created',
    {
      id: record.id,
      type: record.type,
      from,
      to,
      address: record.lockupAddress,
      userLockAmount: record.userLockAmount,
      serverLockAmount: record.serverLockAmount,
      bip21: record.bip21,
      destination,
      timeoutBlockHeight: record.timeoutBlockHeight,
      claimTimeoutBlockHeight: record.claimSide.timeoutBlockHeight,
      refundFiles: record.refundFiles,
    },
    [
      `swap ${record.id} created (chain ${from} → ${to}): send ${amount} to`,
      `  ${record.lockupAddress}`,
      `  the service then locks ${record.serverLockAmount > 0 ? `${record.serverLockAmount} sat` : 'its amount for it'} on ${to}, claimed (minus the claim fee) to ${destination}`,
      `  refund file: ${record.refundFiles?.json} (and .png); a refund without the service is possible from ${from} block ${record.timeoutBlockHeight}`,
    ].join('\n'),
  );
  return flags['no-wait'] === true ? 0 : follow(context, record, flags, output);
}

async function status(context: SwapContext, id: string | undefined, flags: Flags, output: Output): Promise<number> {
  if (id === undefined) throw new UsageError('usage: ferry swap status ID [--follow]');
  if (context.store.hasContract(id)) return contractStatus(context, id, output);
  const record = context.store.load(id);
  const client = context.client(record.serviceUrl);
  let live;
  try {
    live = await client.status(id);
  } catch (error) {
    output.problem(`the service does not answer for ${id}: ${(error as Error).message}; last known status: ${record.status ?? 'none'}`);
  }
  if (live !== undefined && noteStatus(record, live.status)) context.store.save(record);
  const update = live ?? { id, status: record.status ?? 'unknown' };
  output.event('status', { ...summary(record), ...update, live: live !== undefined }, `swap ${id} (${record.type}): ${update.status} — ${describeStatus(record, update)}`);
  if (flags.follow !== true || live === undefined) return live === undefined ? 1 : 0;
  const stream = client.statusStream({ pollIntervalMs: 2_000 });
  try {
    stream.on('update', (next) => output.event('status', { ...next, type: record.type }, `swap ${id}: ${next.status} — ${describeStatus(record, next)}`));
    stream.subscribe(id);
    const { success, failure } = FINAL_STATUSES[record.type];
    const final = await stream.waitFor(id, (u) => success.includes(u.status) || failure.includes(u.status), 24 * 3600_000);
    return success.includes(final.status) ? 0 : 1;
  } finally {
    stream.close();
  }
}

/** A contract swap's status: the service's word, noted in the record (following it is `ferry swap claim ID`). */
async function contractStatus(context: SwapContext, id: string, output: Output): Promise<number> {
  const record = context.store.loadContract(id);
  let live;
  try {
    live = await context.client(record.serviceUrl).status(id);
  } catch (error) {
    output.problem(`the service does not answer for ${id}: ${(error as Error).message}; last known status: ${record.status ?? 'none'}`);
  }
  if (live !== undefined && noteStatus(record, live.status)) context.store.saveContract(record);
  const status = live?.status ?? record.status ?? 'unknown';
  const { contractSummary } = await contractCommands();
  output.event('status', { ...contractSummary(record), status, live: live !== undefined }, `swap ${id} (${record.type}, ${record.currency}): ${status}`);
  return live === undefined ? 1 : 0;
}

async function claim(context: SwapContext, id: string | undefined, flags: Flags, config: FerryConfig, output: Output): Promise<number> {
  if (id === undefined) throw new UsageError('usage: ferry swap claim ID [--address A]');
  if (context.store.hasContract(id)) return (await contractCommands()).contractResume(context, flags, config, output, context.store.loadContract(id));
  const record = context.store.load(id);
  context.checkAddress(record.type === 'chain' ? record.claimSide.currency : record.currency);
  if (record.type === 'chain') context.checkAddress(record.currency, 'refund-address');
  return follow(context, record, flags, output);
}

function printRefund(output: Output, id: string, refund: RefundResult): void {
  const how = refund.path === 'key' ? 'key path, signed with the service' : 'script path, after the timeout';
  output.event(
    'refunded',
    { id, txid: refund.txid, path: refund.path, amount: Number(refund.amount), fee: Number(refund.fee), address: refund.destination, cooperativeFailure: refund.cooperativeFailure },
    `swap ${id}: refunded ${refund.amount} sat to ${refund.destination} in ${refund.txid} (${how}, fee ${refund.fee} sat)`,
  );
}

async function refund(context: SwapContext, id: string | undefined, flags: Flags, config: FerryConfig, output: Output): Promise<number> {
  if (flags.recover === true) {
    if (id !== undefined || flags.file !== undefined) throw new UsageError('usage: ferry swap refund --recover [--from RBTC]: it finds the lockups itself');
    const currency = stringFlag(flags, 'from') ?? 'RBTC';
    if (!isContractCurrency(currency)) throw new UsageError(`--recover finds lockups in a swap contract: --from RBTC, not ${currency} (refund files recover UTXO swaps)`);
    return (await contractCommands()).contractRecover(context, flags, config, output, currency);
  }
  if (id !== undefined && context.store.hasContract(id)) return (await contractCommands()).contractRefund(context, flags, config, output, context.store.loadContract(id));
  const file = stringFlag(flags, 'file');
  if ((id === undefined) === (file === undefined)) throw new UsageError('usage: ferry swap refund ID, or ferry swap refund --file FILE');
  const optionsFor = async (currency: string) => ({
    destination: await context.destination(currency),
    cooperative: flags['script-path'] !== true,
    lockupTxid: stringFlag(flags, 'lockup'),
    feeRate: feeRateOf(flags, currency),
  });
  if (id !== undefined) {
    const record = context.store.load(id);
    if (record.type === 'reverse') throw new UsageError(`swap ${id} is a reverse swap: only submarine and chain swaps are refunded`);
    printRefund(output, id, await context.client(record.serviceUrl).refund(record, await optionsFor(record.currency)));
    return 0;
  }
  const refundFile = readRefundFile(file!);
  const options = await optionsFor(refundFile.currency);
  const known = context.store.has(refundFile.id) ? context.store.load(refundFile.id) : undefined;
  const client = context.client(known?.serviceUrl);
  const result = await client.refundFromFile(refundFile, { ...options, lockupTxid: options.lockupTxid ?? known?.lockup?.txid });
  if (known !== undefined && known.type !== 'reverse') {
    known.refund = { txid: result.txid, path: result.path, address: result.destination, amount: Number(result.amount), fee: Number(result.fee) };
    context.store.save(known);
  }
  printRefund(output, refundFile.id, result);
  return 0;
}

function summary(record: SwapRecord): Record<string, unknown> {
  const base = { id: record.id, type: record.type, currency: record.currency, status: record.status ?? null, createdAt: record.createdAt, serviceUrl: record.serviceUrl };
  switch (record.type) {
    case 'submarine':
      return { ...base, invoiceAmount: record.invoiceAmount, expectedAmount: record.expectedAmount, address: record.lockupAddress, refund: record.refund?.txid ?? null };
    case 'reverse':
      return { ...base, invoiceAmount: record.invoiceAmount, onchainAmount: record.onchainAmount, claim: record.claim?.txid ?? null };
    case 'chain':
      return {
        ...base,
        to: record.claimSide.currency,
        userLockAmount: record.userLockAmount,
        serverLockAmount: record.quote?.amount ?? record.serverLockAmount,
        address: record.lockupAddress,
        claim: record.claim?.txid ?? null,
        refund: record.refund?.txid ?? null,
      };
  }
}

async function list(context: SwapContext, output: Output): Promise<number> {
  const records = context.store.list();
  const contracts = context.store.listContracts();
  const { contractSummary } = contracts.length > 0 ? await contractCommands() : { contractSummary: () => ({}) };
  if (output.json) {
    for (const record of records) output.event('swap', summary(record), '');
    for (const record of contracts) output.event('swap', contractSummary(record), '');
    return 0;
  }
  for (const record of contracts) {
    const spent = record.type === 'submarine' ? (record.refund ? ` refunded ${record.refund.txHash}` : '') : record.claim ? ` claimed ${record.claim.txHash}` : '';
    output.event('swap', contractSummary(record), `${record.id}  ${record.type.padEnd(9)}  ${record.currency.padEnd(11)}  ${`${record.invoiceAmount} sat`.padStart(13)}  ${(record.status ?? 'unknown').padEnd(25)}  ${record.createdAt}${spent}`);
  }
  if (records.length === 0 && contracts.length > 0) return 0;
  if (records.length === 0) {
    output.event('swap', {}, `no swaps in ${context.store.dir}`);
    return 0;
  }
  for (const record of records) {
    const amount = `${record.type === 'chain' ? record.userLockAmount : record.invoiceAmount} sat`;
    const refund = record.type !== 'reverse' && record.refund ? ` refunded ${record.refund.txid}` : '';
    const spent = record.type !== 'submarine' && record.claim ? ` claimed ${record.claim.txid}` : refund;
    const chains = record.type === 'chain' ? `${record.currency}→${record.claimSide.currency}` : record.currency;
    output.event('swap', summary(record), `${record.id}  ${record.type.padEnd(9)}  ${chains.padEnd(11)}  ${amount.padStart(13)}  ${(record.status ?? 'unknown').padEnd(25)}  ${record.createdAt}${spent}`);
  }
  return 0;
}

/** Runs `ferry swap <sub> ...`; returns the exit code. */
export async function runSwapCommand(sub: string | undefined, args: string[], flags: Flags, config: FerryConfig): Promise<number> {
  const output = createOutput(flags.json === true);
  try {
    const context = swapContext(flags, config);
    switch (sub) {
      case 'submarine':
        return await submarine(context, flags, config, output);
      case 'reverse':
        return await reverse(context, flags, config, output);
      case 'chain':
        return await chainSwap(context, flags, output);
      case 'status':
        return await status(context, args[0], flags, output);
      case 'claim':
        return await claim(context, args[0], flags, config, output);
      case 'refund':
        return await refund(context, args[0], flags, config, output);
      case 'list':
        return list(context, output);
      case 'restore':
        return await restoreCommand(context, flags, output, follow, evmAccountGiven(flags) ? async () => (await contractCommands()).contractRestore(context, flags, config, output) : undefined);
      case 'rescue-key':
        return rescueKeyCommand(context, output);
      default:
        throw new UsageError(`${sub === undefined ? 'missing' : 'unknown'} swap command${sub ? `: ${sub}` : ''}\n\n${swapUsage}`);
    }
  } catch (error) {
    if (error instanceof UsageError) {
      output.problem(error.message);
      return 2;
    }
    const prefix = error instanceof VerificationError ? 'refused the service answer: ' : '';
    let text = error instanceof Error ? error.message : String(error);
    if (error instanceof ServiceUnreachableError && sub === 'refund' && flags['bitcoin-rpc'] === undefined && flags['elements-rpc'] === undefined) {
      text += ' (without the service, give --bitcoin-rpc or, for L-BTC, --elements-rpc http://user:password@host:port of a node)';
    }
    output.problem(`ferry swap ${sub}: ${prefix}${text}`);
    return 1;
  }
}
