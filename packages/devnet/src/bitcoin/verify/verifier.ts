// Verifies every input's script and signature with bitcore-lib's interpreter, the way Bitcoin Core's
// CheckInputScripts does for a mempool transaction: first under the standard (policy) flags, and on
// failure again under consensus flags alone, to tell a policy violation from an invalid spend.
// Chain-dependent finality (nLockTime vs height, BIP68) is the node's job; CLTV/CSV here only compare
// the script's operands with the transaction's own nLockTime and nSequence, as in Core.
import type { Prevout, ScriptCheck } from './index.ts';
import { Interpreter, Output, Script, Transaction } from './bitcore.ts';
import { coreScriptError } from './errors.ts';
import { MANDATORY_FLAGS, STANDARD_FLAGS } from './flags.ts';

type BitcoreTransaction = InstanceType<typeof Transaction>;
type BitcoreOutput = InstanceType<typeof Output>;

export function verifyTransactionScripts(txHex: string, prevouts: Prevout[]): ScriptCheck {
  const tx = new Transaction(Buffer.from(txHex, 'hex'));
  if (prevouts.length !== tx.inputs.length) {
    throw new RangeError(`${tx.inputs.length} inputs but ${prevouts.length} prevouts`);
  }
  // Taproot signatures commit to every spent output, so each input must know its own.
  const spent = prevouts.map(toOutput);
  tx.inputs.forEach((input, index) => {
    input.output = spent[index];
  });

  for (let index = 0; index < tx.inputs.length; index++) {
    const policyError = checkInput(tx, index, spent[index], prevouts[index].script, STANDARD_FLAGS);
    if (policyError === undefined) continue;
    const consensusError = checkInput(tx, index, spent[index], prevouts[index].script, MANDATORY_FLAGS);
    // Like Core, report the error of the first (policy) run in both cases.
    const prefix = consensusError === undefined ? 'non-mandatory-script-verify-flag' : 'mandatory-script-verify-flag-failed';
    return { ok: false, inputIndex: index, reason: `${prefix} (${policyError})` };
  }
  return { ok: true };
}

function toOutput(prevout: Prevout): BitcoreOutput {
  const { script, value } = prevout;
  const buffer = Buffer.from(script.buffer, script.byteOffset, script.byteLength);
  return new Output({ satoshis: Number(value), script: buffer });
}

/** Returns Core's ScriptErrorString text for a failing input, undefined if it verifies. */
function checkInput(
  tx: BitcoreTransaction,
  index: number,
  spent: BitcoreOutput,
  prevoutScript: Uint8Array,
  flags: number,
): string | undefined {
  const input = tx.inputs[index];
  const interpreter = new Interpreter();
  let valid: boolean;
  try {
    // A script bitcore cannot even parse is one Core fails to step through: a bad opcode.
    const scriptPubKey = spent.script;
    if (scriptPubKey === null) return coreScriptError('SCRIPT_ERR_BAD_OPCODE');
    let scriptSig: InstanceType<typeof Script>;
    try {
      scriptSig = input.script;
    } catch {
      return coreScriptError('SCRIPT_ERR_BAD_OPCODE');
    }
    valid = interpreter.verify(scriptSig, scriptPubKey, tx, index, flags, input.witnesses ?? [], spent.satoshis);
  } catch {
    return coreScriptError('SCRIPT_ERR_UNKNOWN_ERROR');
  }
  if (valid) return undefined;
  // bitcore leaves errstr empty when a Taproot key-path signature simply does not verify.
  if (interpreter.errstr === '' && isTaproot(prevoutScript)) return coreScriptError('SCRIPT_ERR_SCHNORR_SIG');
  return coreScriptError(interpreter.errstr);
}

function isTaproot(script: Uint8Array): boolean {
  return script.length === 34 && script[0] === 0x51 && script[1] === 0x20;
}
