// Script verification flags as Bitcoin Core applies them to mempool transactions
// (policy.h: MANDATORY_SCRIPT_VERIFY_FLAGS and STANDARD_SCRIPT_VERIFY_FLAGS).
import { Interpreter } from './bitcore.ts';

const I = Interpreter;

/** Consensus rules: a failure here is 'mandatory-script-verify-flag-failed'. */
export const MANDATORY_FLAGS =
  I.SCRIPT_VERIFY_P2SH |
  I.SCRIPT_VERIFY_DERSIG |
  I.SCRIPT_VERIFY_NULLDUMMY |
  I.SCRIPT_VERIFY_CHECKLOCKTIMEVERIFY |
  I.SCRIPT_VERIFY_CHECKSEQUENCEVERIFY |
  I.SCRIPT_VERIFY_WITNESS |
  I.SCRIPT_VERIFY_TAPROOT;

/**
 * Relay policy on top of consensus. CLEANSTACK is left out on purpose: bitcore-lib checks it
 * against the scriptSig stack even for native segwit spends, so it fails every valid P2WPKH/P2WSH/
 * P2TR spend (the verifier tests prove the spends pass without it).
 */
export const STANDARD_FLAGS =
  MANDATORY_FLAGS |
  I.SCRIPT_VERIFY_STRICTENC |
  I.SCRIPT_VERIFY_MINIMALDATA |
  I.SCRIPT_VERIFY_DISCOURAGE_UPGRADABLE_NOPS |
  I.SCRIPT_VERIFY_MINIMALIF |
  I.SCRIPT_VERIFY_NULLFAIL |
  I.SCRIPT_VERIFY_LOW_S |
  I.SCRIPT_VERIFY_DISCOURAGE_UPGRADABLE_WITNESS_PROGRAM |
  I.SCRIPT_VERIFY_WITNESS_PUBKEYTYPE |
  I.SCRIPT_VERIFY_CONST_SCRIPTCODE |
  I.SCRIPT_VERIFY_DISCOURAGE_UPGRADABLE_TAPROOT_VERSION |
  I.SCRIPT_VERIFY_DISCOURAGE_OP_SUCCESS |
  I.SCRIPT_VERIFY_DISCOURAGE_UPGRADABLE_PUBKEYTYPE;
