// bitcore-lib's interpreter reports failures as SCRIPT_ERR_* names; nodes and wallets expect Bitcoin
// Core's ScriptErrorString texts (src/script/script_error.cpp), so translate them.

const EVAL_FALSE = 'Script evaluated without error but finished with a false/empty top stack element';

const CORE_TEXT: Readonly<Record<string, string>> = {
  // bitcore raises plain EVAL_FALSE only where a witness script leaves other than one stack item,
  // which Core reports as CLEANSTACK (implicit for witness scripts, and consensus there).
  SCRIPT_ERR_EVAL_FALSE: 'Stack size must be exactly one after execution',
  // bitcore splits Core's single EVAL_FALSE into where the false value was found
  SCRIPT_ERR_EVAL_FALSE_IN_STACK: EVAL_FALSE,
  SCRIPT_ERR_EVAL_FALSE_NO_RESULT: EVAL_FALSE,
  SCRIPT_ERR_EVAL_FALSE_IN_P2SH_STACK: EVAL_FALSE,
  SCRIPT_ERR_EVAL_FALSE_NO_P2SH_STACK: EVAL_FALSE,
  SCRIPT_ERR_OP_RETURN: 'OP_RETURN was encountered',
  SCRIPT_ERR_SCRIPT_SIZE: 'Script is too big',
  SCRIPT_ERR_PUSH_SIZE: 'Push value size limit exceeded',
  SCRIPT_ERR_OP_COUNT: 'Operation limit exceeded',
  SCRIPT_ERR_STACK_SIZE: 'Stack size limit exceeded',
  SCRIPT_ERR_SIG_COUNT: 'Signature count negative or greater than pubkey count',
  SCRIPT_ERR_PUBKEY_COUNT: 'Pubkey count negative or limit exceeded',
  SCRIPT_ERR_VERIFY: 'Script failed an OP_VERIFY operation',
  SCRIPT_ERR_EQUALVERIFY: 'Script failed an OP_EQUALVERIFY operation',
  SCRIPT_ERR_CHECKMULTISIGVERIFY: 'Script failed an OP_CHECKMULTISIGVERIFY operation',
  SCRIPT_ERR_CHECKSIGVERIFY: 'Script failed an OP_CHECKSIGVERIFY operation',
  SCRIPT_ERR_NUMEQUALVERIFY: 'Script failed an OP_NUMEQUALVERIFY operation',
  SCRIPT_ERR_BAD_OPCODE: 'Opcode missing or not understood',
  SCRIPT_ERR_DISABLED_OPCODE: 'Attempted to use a disabled opcode',
  SCRIPT_ERR_INVALID_STACK_OPERATION: 'Operation not valid with the current stack size',
  SCRIPT_ERR_INVALID_ALTSTACK_OPERATION: 'Operation not valid with the current altstack size',
  SCRIPT_ERR_UNBALANCED_CONDITIONAL: 'Invalid OP_IF construction',
  SCRIPT_ERR_NEGATIVE_LOCKTIME: 'Negative locktime',
  SCRIPT_ERR_UNSATISFIED_LOCKTIME: 'Locktime requirement not satisfied',
  SCRIPT_ERR_SIG_HASHTYPE: 'Signature hash type missing or not understood',
  SCRIPT_ERR_SIG_DER_INVALID_FORMAT: 'Non-canonical DER signature',
  SCRIPT_ERR_MINIMALDATA: 'Data push larger than necessary',
  SCRIPT_ERR_SIG_PUSHONLY: 'Only push operators allowed in signatures',
  SCRIPT_ERR_SIG_DER_HIGH_S: 'Non-canonical signature: S value is unnecessarily high',
  SCRIPT_ERR_SIG_NULLDUMMY: 'Dummy CHECKMULTISIG argument must be zero',
  SCRIPT_ERR_MINIMALIF: 'OP_IF/NOTIF argument must be minimal',
  SCRIPT_ERR_SIG_NULLFAIL: 'Signature must be zero for failed CHECK(MULTI)SIG operation',
  // bitcore uses both spellings for the same NULLFAIL rule
  SCRIPT_ERR_NULLFAIL: 'Signature must be zero for failed CHECK(MULTI)SIG operation',
  SCRIPT_ERR_DISCOURAGE_UPGRADABLE_NOPS: 'NOPx reserved for soft-fork upgrades',
  SCRIPT_ERR_DISCOURAGE_UPGRADABLE_WITNESS_PROGRAM: 'Witness version reserved for soft-fork upgrades',
  SCRIPT_ERR_DISCOURAGE_UPGRADABLE_TAPROOT_VERSION: 'Taproot version reserved for soft-fork upgrades',
  SCRIPT_ERR_DISCOURAGE_OP_SUCCESS: 'OP_SUCCESSx reserved for soft-fork upgrades',
  SCRIPT_ERR_DISCOURAGE_UPGRADABLE_PUBKEYTYPE: 'Public key version reserved for soft-fork upgrades',
  SCRIPT_ERR_PUBKEYTYPE: 'Public key is neither compressed or uncompressed',
  SCRIPT_ERR_CLEANSTACK: 'Stack size must be exactly one after execution',
  SCRIPT_ERR_WITNESS_PROGRAM_WRONG_LENGTH: 'Witness program has incorrect length',
  SCRIPT_ERR_WITNESS_PROGRAM_WITNESS_EMPTY: 'Witness program was passed an empty witness',
  SCRIPT_ERR_WITNESS_PROGRAM_MISMATCH: 'Witness program hash mismatch',
  SCRIPT_ERR_WITNESS_MALLEATED: 'Witness requires empty scriptSig',
  SCRIPT_ERR_WITNESS_MALLEATED_P2SH: 'Witness requires only-redeemscript scriptSig',
  SCRIPT_ERR_WITNESS_UNEXPECTED: 'Witness provided for non-witness script',
  SCRIPT_ERR_WITNESS_PUBKEYTYPE: 'Using non-compressed keys in segwit',
  SCRIPT_ERR_SCHNORR_SIG_SIZE: 'Invalid Schnorr signature size',
  SCRIPT_ERR_SCHNORR_SIG_HASHTYPE: 'Invalid Schnorr signature hash type',
  SCRIPT_ERR_SCHNORR_SIG: 'Invalid Schnorr signature',
  SCRIPT_ERR_TAPROOT_WRONG_CONTROL_SIZE: 'Invalid Taproot control block size',
  SCRIPT_ERR_TAPSCRIPT_VALIDATION_WEIGHT: 'Too much signature validation relative to witness weight',
  SCRIPT_ERR_TAPSCRIPT_CHECKMULTISIG: 'OP_CHECKMULTISIG(VERIFY) is not available in tapscript',
  SCRIPT_ERR_TAPSCRIPT_MINIMALIF: 'OP_IF/NOTIF argument must be minimal in tapscript',
  SCRIPT_ERR_TAPSCRIPT_EMPTY_PUBKEY: 'Empty public key in tapscript',
  SCRIPT_ERR_OP_CODESEPARATOR: 'Using OP_CODESEPARATOR in non-witness script',
  SCRIPT_ERR_SIG_FINDANDDELETE: 'Signature is found in scriptCode',
};

/** Core's text for a bitcore error name; anything unrecognised is Core's catch-all. */
export function coreScriptError(bitcoreError: string): string {
  return CORE_TEXT[bitcoreError] ?? 'unknown error';
}
