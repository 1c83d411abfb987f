// Verifies an Elements transaction the way elementsd accepts it into its mempool: first the amounts
// (CheckTxInputs → VerifyAmounts: balance with new issuances, range and surjection proofs), then each input's script
// under the standard flags and, on failure, consensus flags alone (CheckInputScripts), so a policy
// violation is told from an invalid spend. Finality against the chain height is the node's job.
import { Transaction } from 'liquidjs-lib';
import { verifyAmounts } from './amounts.ts';
import { AMOUNTS_REJECT, fail, rejectReason, unsupported, type ScriptFailure } from './errors.ts';
import { REGTEST_GENESIS_BLOCK_HASH, type ElementsCheck, type ElementsPrevout, type VerifyOptions } from './index.ts';
import { isNullIssuance, isReissuance } from './issuance.ts';
import type { SpendContext } from './sighash.ts';
import { verifyP2wpkh } from './segwit.ts';
import { verifyP2wsh } from './p2wsh.ts';
import { verifyTaproot } from './taproot.ts';
import { loadZkp } from '@ferry/sdk/chains/liquid/zkp.js';

export async function verifyElementsTransaction(
  txHex: string,
  prevouts: ElementsPrevout[],
  options: VerifyOptions = {},
): Promise<ElementsCheck> {
  const tx = Transaction.fromHex(txHex);
  if (tx.isCoinbase()) throw new RangeError('coinbase transactions spend nothing to verify');
  if (prevouts.length !== tx.ins.length) throw new RangeError(`${tx.ins.length} inputs but ${prevouts.length} prevouts`);

  // New issuances are verified (issuance.ts); peg-ins and reissuances are refused, not verified.
  for (const [index, input] of tx.ins.entries()) {
    const detail = unsupportedInput(input);
    if (detail !== undefined) return { ok: false, inputIndex: index, reason: 'devnet-unsupported', detail };
  }

  const amountsError = verifyAmounts(await loadZkp(), tx, prevouts);
  if (amountsError !== undefined) {
    return { ok: false, reason: AMOUNTS_REJECT.reason, detail: `${AMOUNTS_REJECT.detail} (devnet: ${amountsError})` };
  }

  const genesisBlockHash = Buffer.from(options.genesisBlockHash ?? REGTEST_GENESIS_BLOCK_HASH, 'hex').reverse();
  const ctx: SpendContext = { tx, prevouts, genesisBlockHash };
  for (let index = 0; index < tx.ins.length; index++) {
    const failure = verifyInput(ctx, index, true);
    if (failure === undefined) continue;
    const failsConsensus = failure.unsupported === undefined && verifyInput(ctx, index, false) !== undefined;
    const result: ElementsCheck = { ok: false, inputIndex: index, reason: rejectReason(failure, failsConsensus) };
    if (failure.unsupported !== undefined) result.detail = `devnet: ${failure.unsupported}`;
    return result;
  }
  return { ok: true };
}

/** Why the devnet cannot judge an input (undefined when it can): Ferry's swaps and wallets make none of these. */
function unsupportedInput(input: Transaction['ins'][number]): string | undefined {
  if (input.isPegin === true) return 'peg-ins are not supported by the devnet';
  if (input.issuance === undefined) return undefined;
  if (isReissuance(input.issuance)) return 'asset reissuances are not supported by the devnet';
  // elementsd reads such an input as carrying no issuance and serializes it without one (another txid).
  if (isNullIssuance(input.issuance)) return 'an issuance of neither an asset nor tokens is not supported by the devnet';
  return undefined;
}

/** Undefined when the input's spend is valid under the given flags. */
function verifyInput(ctx: SpendContext, index: number, standard: boolean): ScriptFailure | undefined {
  const input = ctx.tx.ins[index];
  const script = ctx.prevouts[index].script;
  const witness = input.witness ?? [];
  const program = witnessProgram(script);
  if (program === undefined) return unsupported('only witness outputs (P2WPKH, P2WSH, P2TR) can be spent on the devnet');
  if (input.script.length > 0) return fail('WITNESS_MALLEATED');
  if (program.version === 0 && program.program.length === 20) return verifyP2wpkh(ctx, index, program.program, witness, standard);
  if (program.version === 1 && program.program.length === 32) return verifyTaproot(ctx, index, program.program, witness, standard);
  if (program.version === 0 && program.program.length === 32) return verifyP2wsh(ctx, index, program.program, witness, standard);
  if (program.version === 0) return fail('WITNESS_PROGRAM_WRONG_LENGTH');
  // Future witness versions are anyone-can-spend by consensus and not relayed.
  return standard ? fail('DISCOURAGE_UPGRADABLE_WITNESS_PROGRAM') : undefined;
}

/** A witness output script: OP_n (0..16) then one push of 2..40 bytes. */
function witnessProgram(script: Uint8Array): { version: number; program: Uint8Array } | undefined {
  if (script.length < 4 || script.length > 42) return undefined;
  const op = script[0];
  if (op !== 0x00 && (op < 0x51 || op > 0x60)) return undefined;
  if (script[1] + 2 !== script.length) return undefined;
  return { version: op === 0 ? 0 : op - 0x50, program: script.subarray(2) };
}
