// `ferry swap` on a contract chain (RBTC): the submarine swap is locked from the user's EVM account at once (the CLI
// holds its key), the reverse swap claimed into it, a failed submarine swap refunded (EIP-712 signature, else the
// timelock), and `refund --recover` finds the account's lockups from the contract's Lockup logs when the store is
// gone, and `restore --evm-key|--evm-mnemonic` rebuilds the account's records from the service's restore by address
// and claims or refunds what is left. The account: --evm-key / FERRY_EVM_KEY, or --evm-mnemonic / FERRY_EVM_MNEMONIC (--evm-account N), else the
// devnet's user account; the node: --evm-rpc / FERRY_EVM_RPC, else the devnet's anvil.
import { formatEther } from 'ethers';
import type { EvmAccount } from '@ferry/sdk/client/chains/evm.js';
import { SwapClient, type EvmSwapOptions } from '@ferry/sdk/client/client.js';
import type { ContractRefund, ContractSwaps } from '@ferry/sdk/client/contract-swaps.js';
import { CONTRACT_SUBMARINE_SUCCESS, followContractSwap, type ContractFollowEvent } from '@ferry/sdk/client/follow-contract.js';
import { FINAL_STATUSES } from '@ferry/sdk/client/types.js';
import type { ContractRecord } from '@ferry/sdk/client/records.js';
import type { FerryConfig } from '../config/index.ts';
import { readDevnetInfo } from '@ferry/devnet/info-file.js';
import { UsageError } from './usage-error.ts';
import { btc, type Output } from './swap-output.ts';
import { stringFlag, type Flags, type SwapContext } from './swap-context.ts';

/** The EVM node and account of the command: flags, then the environment, then the devnet's. */
export function evmOptions(flags: Flags, config: FerryConfig, env: Record<string, string | undefined> = process.env): EvmSwapOptions {
  const key = stringFlag(flags, 'evm-key') ?? env.FERRY_EVM_KEY;
  const mnemonic = stringFlag(flags, 'evm-mnemonic') ?? env.FERRY_EVM_MNEMONIC;
  if (key !== undefined && mnemonic !== undefined) throw new UsageError('give --evm-key or --evm-mnemonic, not both');
  const indexText = stringFlag(flags, 'evm-account');
  if (indexText !== undefined && (mnemonic === undefined || !/^\d+$/.test(indexText))) throw new UsageError('--evm-account N (a number) picks an account of --evm-mnemonic');
  let rpcUrl = stringFlag(flags, 'evm-rpc') ?? env.FERRY_EVM_RPC;
  let account: EvmAccount | undefined = key !== undefined ? { privateKey: key } : mnemonic !== undefined ? { mnemonic, index: Number(indexText ?? 0) } : undefined;
  if (rpcUrl === undefined || account === undefined) {
    let info;
    try {
      info = readDevnetInfo(config.dataDir);
    } catch {
      throw new UsageError(`RBTC swaps need ${rpcUrl === undefined ? '--evm-rpc URL (an EVM node)' : ''}${rpcUrl === undefined && account === undefined ? ' and ' : ''}${account === undefined ? '--evm-key HEX or --evm-mnemonic WORDS (your account)' : ''} (no devnet found in ${config.dataDir})`);
    }
    rpcUrl ??= info.evm.rpcUrl;
    account ??= { privateKey: info.evm.accounts.user.privateKey };
  }
  return { rpcUrl, account };
}

/** Whether the command names an EVM account of its own (a restore by address then), not only the environment's. */

const rbtc = (wei: bigint | string): string => formatEther(BigInt(wei));

/** A client on the record's (or the given) service with the command's EVM account, and its contract swaps. */
async function contractSwaps(context: SwapContext, flags: Flags, config: FerryConfig, currency: string, recorded?: string): Promise<{ client: SwapClient; swaps: ContractSwaps }> {
  const client = new SwapClient({ serviceUrl: context.serviceUrl(recorded), network: context.network, store: context.store, evm: evmOptions(flags, config) });
  try {
    return { client, swaps: await client.contracts(currency) };
  } catch (error) {
    await client.close();
    throw error;
  }
}

function printEvent(output: Output, record: ContractRecord, event: ContractFollowEvent): void {
  if (event.type === 'status') output.event('status', { id: record.id, status: event.update.status }, `swap ${record.id}: ${event.update.status}`);
  else if (event.type === 'claimed') output.event('claimed', { id: record.id, txHash: event.tx.txHash, fee: event.tx.fee.toString() }, `swap ${record.id}: claimed into ${record.account} in ${event.tx.txHash} (gas ${rbtc(event.tx.fee)} RBTC)`);
  else if (event.type === 'refunded') printRefund(output, record.id, event.refund);
  else output.problem(`swap ${record.id}: ${event.message}`);
}

function printRefund(output: Output, id: string, refund: ContractRefund): void {
  const how = refund.path === 'cooperative' ? "refundCooperative, with the service's signature" : 'refund, after the timelock';
  output.event(
    'refunded',
    { id, txHash: refund.txHash, path: refund.path, amount: refund.lockup.amount.toString(), fee: refund.fee.toString(), cooperativeFailure: refund.cooperativeFailure },
    `swap ${id}: refunded ${rbtc(refund.lockup.amount)} RBTC to ${refund.lockup.refundAddress} in ${refund.txHash} (${how}, gas ${rbtc(refund.fee)})`,
  );
}

/** Follows to the end; Ctrl-C stops following (the swap is safe in the store). */
async function follow(client: SwapClient, swaps: ContractSwaps, record: ContractRecord, flags: Flags, output: Output): Promise<number> {
  const stream = client.statusStream({ pollIntervalMs: 2_000 });
  const stop = new AbortController();
  const onSignal = () => stop.abort();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    const result = await followContractSwap(swaps, record, {
      stream,
      refund: flags['no-refund'] !== true,
      cooperative: flags['script-path'] !== true,
      signal: stop.signal,
      onEvent: (event) => printEvent(output, record, event),
    });
    const fields = { id: record.id, status: result.status, success: result.success, message: result.message };
    if (result.stopped) {
      output.event('stopped', fields, `swap ${record.id}: stopped following; resume with: ferry swap claim ${record.id}`);
      return 130;
    }
    output.event('done', fields, result.success ? `swap ${record.id}: done (${result.status})` : `swap ${record.id}: ended with ${result.status}${result.message ? `: ${result.message}` : ''}`);
    return result.success ? 0 : 1;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    stream.close();
  }
}

export async function contractSubmarine(context: SwapContext, flags: Flags, config: FerryConfig, output: Output, invoice: string, currency: string): Promise<number> {
  const { client, swaps } = await contractSwaps(context, flags, config, currency);
  try {
    const record = await swaps.createSubmarine({ invoice });
    const lock = await swaps.lock(record);
    output.event(
      'created',
      { id: record.id, type: record.type, currency, contract: record.contract.address, claimAddress: record.contract.serviceAddress, expectedAmount: record.expectedAmount, lockup: lock.txHash, account: record.account, timeoutBlockHeight: record.timeoutBlockHeight },
      [
        `swap ${record.id} created (submarine): the service pays your invoice of ${record.invoiceAmount} sat;`,
        `  locked ${btc(record.expectedAmount)} RBTC from ${record.account} in ${lock.txHash} (gas ${rbtc(lock.fee)})`,
        `  a refund without the service is possible from block ${record.timeoutBlockHeight} (ferry swap refund ${record.id})`,
      ].join('\n'),
    );
    return flags['no-wait'] === true ? 0 : await follow(client, swaps, record, flags, output);
  } finally {
    await client.close();
  }
}

export async function contractReverse(context: SwapContext, flags: Flags, config: FerryConfig, output: Output, request: { invoiceAmount?: number; onchainAmount?: number }, currency: string): Promise<number> {
  if (flags.address !== undefined) throw new UsageError('--address: an RBTC reverse swap is claimed into your EVM account (--evm-key / --evm-mnemonic)');
  const { client, swaps } = await contractSwaps(context, flags, config, currency);
  try {
    const record = await swaps.createReverse(request);
    output.event(
      'created',
      { id: record.id, type: record.type, currency, invoice: record.invoice, invoiceAmount: record.invoiceAmount, onchainAmount: record.onchainAmount, account: record.account, timeoutBlockHeight: record.timeoutBlockHeight },
      [
        `swap ${record.id} created (reverse): pay this invoice of ${record.invoiceAmount} sat`,
        `  ${record.invoice}`,
        `  the service then locks ${btc(record.onchainAmount)} RBTC in ${record.contract.address}, claimed into ${record.account}`,
      ].join('\n'),
    );
    return flags['no-wait'] === true ? 0 : await follow(client, swaps, record, flags, output);
  } finally {
    await client.close();
  }
}

/** `ferry swap claim ID` for a contract swap: resume following. */
export async function contractResume(context: SwapContext, flags: Flags, config: FerryConfig, output: Output, record: ContractRecord): Promise<number> {
  const { client, swaps } = await contractSwaps(context, flags, config, record.currency, record.serviceUrl);
  try {
    return await follow(client, swaps, record, flags, output);
  } finally {
    await client.close();
  }
}

export async function contractRefund(context: SwapContext, flags: Flags, config: FerryConfig, output: Output, record: ContractRecord): Promise<number> {
  if (record.type === 'reverse') throw new UsageError(`swap ${record.id} is a reverse swap: only submarine swaps are refunded`);
  const { client, swaps } = await contractSwaps(context, flags, config, record.currency, record.serviceUrl);
  try {
    printRefund(output, record.id, await swaps.refund(record, { cooperative: flags['script-path'] !== true }));
    return 0;
  } finally {
    await client.close();
  }
}

/** `ferry swap refund --recover`: every lockup of the account still in the contract, refunded where it can be now. */
export async function contractRecover(context: SwapContext, flags: Flags, config: FerryConfig, output: Output, currency: string): Promise<number> {
  const { client, swaps } = await contractSwaps(context, flags, config, currency);
  let waiting = 0;
  try {
    const found = await swaps.recoverable();
    if (found.length === 0) output.event('recovered', { count: 0, account: swaps.chain.address }, `no lockup of ${swaps.chain.address} is left in ${swaps.chain.contractAddress}`);
    for (const { lockup, record } of found) {
      const id = record?.id ?? lockup.preimageHash;
      try {
        const refund = await swaps.refundLockup(lockup, { id: record?.id, cooperative: flags['script-path'] !== true });
        if (record !== undefined) {
          record.refund = { txHash: refund.txHash, path: refund.path, amount: refund.lockup.amount.toString(), fee: refund.fee.toString() };
          swaps.save(record);
        }
        printRefund(output, id, refund);
      } catch (error) {
        waiting++;
        output.problem(`lockup ${lockup.txHash} (${rbtc(lockup.amount)} RBTC, timelock ${lockup.timelock}): ${(error as Error).message}`);
      }
    }
    return waiting === 0 ? 0 : 1;
  } finally {
    await client.close();
  }
}

/** Over for us: succeeded, or failed with nothing of ours left in the contract. */
function contractOver(record: ContractRecord): boolean {
  const status = record.status ?? '';
  if (record.type === 'submarine') return CONTRACT_SUBMARINE_SUCCESS.includes(status) || (FINAL_STATUSES.submarine.failure.includes(status) && record.lockup === undefined);
  return record.claim !== undefined || FINAL_STATUSES.reverse.success.includes(status) || FINAL_STATUSES.reverse.failure.includes(status);
}

/** `ferry swap restore --evm-key|--evm-mnemonic`: the account's swaps back in the store, then claimed or refunded. */
export async function contractRestore(context: SwapContext, flags: Flags, config: FerryConfig, output: Output, currency = 'RBTC'): Promise<number> {
  const { client, swaps } = await contractSwaps(context, flags, config, currency);
  try {
    const result = await swaps.restore();
    for (const record of result.restored) {
      output.event('restored', { id: record.id, type: record.type, currency, status: record.status, account: record.account }, `swap ${record.id} (${record.type}, ${currency}) restored: ${record.status}`);
    }
    for (const { id, reason } of result.skipped) output.problem(`swap ${id} not restored: ${reason}`);
    output.event(
      'summary',
      { currency, account: swaps.chain.address, restored: result.restored.length, known: result.known.length, skipped: result.skipped.length },
      `${result.restored.length} ${currency} swaps of ${swaps.chain.address} restored, ${result.known.length} known already, ${result.skipped.length} skipped`,
    );
    let code = result.skipped.length === 0 ? 0 : 1;
    if (flags['no-wait'] === true) return code;
    for (const record of result.restored) {
      if (contractOver(record)) continue;
      const followed = await follow(client, swaps, record, flags, output);
      if (followed === 130) return followed;
      // A failed swap refunded is what a restore is for: only a failed step counts against it.
      if (followed !== 0 && !(record.type === 'submarine' && record.refund)) code = 1;
    }
    return code;
  } finally {
    await client.close();
  }
}

export function contractSummary(record: ContractRecord): Record<string, unknown> {
  const base = { id: record.id, type: record.type, currency: record.currency, status: record.status ?? null, createdAt: record.createdAt, serviceUrl: record.serviceUrl, account: record.account };
  if (record.type === 'submarine') return { ...base, invoiceAmount: record.invoiceAmount, expectedAmount: record.expectedAmount, contract: record.contract.address, refund: record.refund?.txHash ?? null };
  return { ...base, invoiceAmount: record.invoiceAmount, onchainAmount: record.onchainAmount, claim: record.claim?.txHash ?? null };
}
