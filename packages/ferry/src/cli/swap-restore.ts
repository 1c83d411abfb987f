// `ferry swap restore`: rebuilds the client store from the rescue key alone (--mnemonic, or the store's own), through
// the service's POST /v2/swap/restore, then follows every restored swap that is not over — claiming what can be
// claimed, refunding what failed. With --xpub of another key it can only list what the service knows. With
// --evm-key / --evm-mnemonic (FERRY_EVM_*) the RBTC swaps of that EVM account are restored by its address instead
// (swap-contract.ts), and with --mnemonic too, both.
import { RescueKey } from '@ferry/sdk/client/rescue-key.js';
import type { SwapRecord } from '@ferry/sdk/client/records.js';
import { FINAL_STATUSES } from '@ferry/sdk/client/types.js';
import { UsageError } from './usage-error.ts';
import type { Output } from './swap-output.ts';
import { stringFlag, type Flags, type SwapContext } from './swap-context.ts';

export type Follow = (context: SwapContext, record: SwapRecord, flags: Flags, output: Output) => Promise<number>;

/** Over for the client: succeeded, or failed with nothing of ours left to refund. */
function over(record: SwapRecord): boolean {
  const { success, failure } = FINAL_STATUSES[record.type];
  const status = record.status ?? '';
  if (success.includes(status)) return true;
  if (!failure.includes(status)) return false;
  return record.type === 'reverse' || record.lockup === undefined;
}

async function listOnly(context: SwapContext, xpub: string, output: Output): Promise<number> {
  const swaps = await context.client().api.restoreSwaps({ xpub });
  for (const swap of swaps) {
    output.event('found', { ...swap }, `${swap.id}  ${swap.type.padEnd(9)}  ${swap.from}→${swap.to}  ${swap.status}`);
  }
  output.event('listed', { count: swaps.length }, `${swaps.length} swaps found; give --mnemonic (the rescue key) to rebuild them and claim or refund`);
  return 0;
}

export async function restoreCommand(context: SwapContext, flags: Flags, output: Output, follow: Follow, evm?: () => Promise<number>): Promise<number> {
  const mnemonic = stringFlag(flags, 'mnemonic');
  const xpub = stringFlag(flags, 'xpub');
  if (mnemonic !== undefined && xpub !== undefined) throw new UsageError('give --mnemonic or --xpub, not both');
  if (evm !== undefined) {
    const code = await evm();
    if ((mnemonic === undefined && xpub === undefined) || code === 130) return code;
    const keys = await restoreCommand(context, flags, output, follow);
    return Math.max(code, keys);
  }
  let rescue: RescueKey;
  if (mnemonic !== undefined) {
    try {
      rescue = RescueKey.fromMnemonic(mnemonic);
    } catch (error) {
      throw new UsageError(`--mnemonic: ${(error as Error).message}`);
    }
  } else {
    rescue = context.store.rescueKey();
    if (xpub !== undefined && xpub !== rescue.xpub) return listOnly(context, xpub, output);
  }
  const client = context.client();
  const result = await client.restore(rescue);
  for (const record of result.restored) {
    output.event('restored', { id: record.id, type: record.type, status: record.status, keyIndex: record.keyIndex }, `swap ${record.id} (${record.type}) restored: ${record.status}`);
  }
  for (const { id, reason } of result.skipped) output.problem(`swap ${id} not restored: ${reason}`);
  output.event(
    'summary',
    { restored: result.restored.length, known: result.known.length, skipped: result.skipped.length, highestIndex: result.highestIndex },
    `${result.restored.length} swaps restored, ${result.known.length} known already, ${result.skipped.length} skipped; new swaps use key indices above ${result.highestIndex}`,
  );
  if (flags['no-wait'] === true) return result.skipped.length === 0 ? 0 : 1;
  let code = result.skipped.length === 0 ? 0 : 1;
  for (const record of result.restored) {
    if (over(record)) continue;
    const followed = await follow(context, record, flags, output);
    // A failed swap refunded is what a restore is for: only a stop or a failed step counts against it.
    if (followed === 130) return followed;
    const stored = context.store.load(record.id);
    if (followed !== 0 && !(stored.type !== 'reverse' && stored.refund)) code = 1;
  }
  return code;
}

/** `ferry swap rescue-key`: the store's rescue key, to write down; with it alone `ferry swap restore` gets every swap back. */
export function rescueKeyCommand(context: SwapContext, output: Output): number {
  const key = context.store.rescueKey();
  output.event('rescueKey', { mnemonic: key.mnemonic, xpub: key.xpub }, [`rescue key of ${context.store.dir} (keep it secret, keep it safe):`, `  ${key.mnemonic}`, `xpub: ${key.xpub}`].join('\n'));
  return 0;
}
