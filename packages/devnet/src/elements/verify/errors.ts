// The script errors this verifier can raise, with elementsd's ScriptErrorString texts (Bitcoin
// Core's src/script/script_error.cpp, which Elements keeps), and the reject reasons built from them.

export const SCRIPT_ERROR = {
  EVAL_FALSE: 'Script evaluated without error but finished with a false/empty top stack element',
  VERIFY: 'Script failed an OP_VERIFY operation',
  EQUALVERIFY: 'Script failed an OP_EQUALVERIFY operation',
  CHECKSIGVERIFY: 'Script failed an OP_CHECKSIGVERIFY operation',
  BAD_OPCODE: 'Opcode missing or not understood',
  UNBALANCED_CONDITIONAL: 'Invalid OP_IF construction',
  MINIMALIF: 'OP_IF/NOTIF argument must be minimal',
  SCRIPT_SIZE: 'Script is too big',
  OP_COUNT: 'Operation limit exceeded',
  INVALID_STACK_OPERATION: 'Operation not valid with the current stack size',
  PUSH_SIZE: 'Push value size limit exceeded',
  NEGATIVE_LOCKTIME: 'Negative locktime',
  UNSATISFIED_LOCKTIME: 'Locktime requirement not satisfied',
  SIG_HASHTYPE: 'Signature hash type missing or not understood',
  SIG_DER: 'Non-canonical DER signature',
  SIG_HIGH_S: 'Non-canonical signature: S value is unnecessarily high',
  NULLFAIL: 'Signature must be zero for failed CHECK(MULTI)SIG operation',
  PUBKEYTYPE: 'Public key is neither compressed or uncompressed',
  WITNESS_PUBKEYTYPE: 'Using non-compressed keys in segwit',
  CLEANSTACK: 'Stack size must be exactly one after execution',
  WITNESS_PROGRAM_MISMATCH: 'Witness program hash mismatch',
  WITNESS_PROGRAM_WRONG_LENGTH: 'Witness program has incorrect length',
  WITNESS_PROGRAM_WITNESS_EMPTY: 'Witness program was passed an empty witness',
  WITNESS_MALLEATED: 'Witness requires empty scriptSig',
  DISCOURAGE_UPGRADABLE_WITNESS_PROGRAM: 'Witness version reserved for soft-fork upgrades',
  DISCOURAGE_UPGRADABLE_TAPROOT_VERSION: 'Taproot version reserved for soft-fork upgrades',
  DISCOURAGE_UPGRADABLE_PUBKEYTYPE: 'Public key version reserved for soft-fork upgrades',
  SCHNORR_SIG_SIZE: 'Invalid Schnorr signature size',
  SCHNORR_SIG_HASHTYPE: 'Invalid Schnorr signature hash type',
  SCHNORR_SIG: 'Invalid Schnorr signature',
  TAPROOT_WRONG_CONTROL_SIZE: 'Invalid Taproot control block size',
  TAPSCRIPT_EMPTY_PUBKEY: 'Empty public key in tapscript',
  TAPSCRIPT_VALIDATION_WEIGHT: 'Too much signature validation relative to witness weight',
  INTROSPECT_INDEX_OUT_OF_BOUNDS: 'Introspection index out of bounds',
  UNKNOWN: 'unknown error',
} as const;

export type ScriptError = keyof typeof SCRIPT_ERROR;

/** Why an input fails. unsupported: a script this devnet cannot run (not proven invalid), with detail. */
export interface ScriptFailure {
  error: ScriptError;
  unsupported?: string;
}

export function fail(error: ScriptError): ScriptFailure {
  return { error };
}

export function unsupported(detail: string): ScriptFailure {
  return { error: 'BAD_OPCODE', unsupported: detail };
}

/**
 * Core's CheckInputScripts reject reason (validation.cpp): the standard-flags error, prefixed by
 * whether consensus flags alone fail too. A script the devnet cannot run is only refused for relay.
 */
export function rejectReason(standardFailure: ScriptFailure, failsConsensus: boolean): string {
  const mandatory = failsConsensus && standardFailure.unsupported === undefined;
  const prefix = mandatory ? 'mandatory-script-verify-flag-failed' : 'non-mandatory-script-verify-flag';
  return `${prefix} (${SCRIPT_ERROR[standardFailure.error]})`;
}

/** elementsd's reject for any failed amount check (tx_verify.cpp, CheckTxInputs). */
export const AMOUNTS_REJECT = { reason: 'bad-txns-in-ne-out', detail: 'value in != value out' } as const;
