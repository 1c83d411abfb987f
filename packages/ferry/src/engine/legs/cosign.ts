// Co-signing a client's key-path spend of a lockup (MuSig2, Ferry's partial signature): the cooperative refund of
// a user lockup and the cooperative claim of a server lockup are this one function. Ferry signs only the input
// that spends this leg's lockup, and only after the caller's last check (e.g. recording "refund signed").
import { hex } from '@scure/base';
import { ClientTransactionError } from '@ferry/sdk/chains/backend.js';
import { InvalidNonce, checkPublicNonce, signWithMusig } from '@ferry/sdk/keys/index.js';
import {
  invalid,
  invalidParameter,
  noCooperativeLegacySpend,
  notSpendingLockup,
  unknownSpentOutputs,
  type PartialSignatureBody,
  type RefundRequest,
} from '@ferry/sdk/protocol/index.js';
import type { EngineContext } from '../context.ts';
import { hexBytes } from '../input.ts';
import { legChain, signerOf, type LockupLeg } from './lockup-leg.ts';

export interface CoSignScope {
  /** Sign only an input spending exactly the recorded lockup (else: any output paying the lockup script). */
  recordedLockupOnly: boolean;
  /** The last check before the signature exists; throwing here means no signature. */
  beforeSigning?: () => Promise<void>;
}

function clientTransactionRefusal(error: ClientTransactionError): Error {
  if (error.fault === 'unparsable') return invalidParameter('transaction');
  if (error.fault === 'index') return invalidParameter('index');
  if (error.fault === 'unknownOutputs') return unknownSpentOutputs();
  return invalid(error.message);
}

export async function coSignClientSpend(
  ctx: EngineContext,
  leg: LockupLeg,
  request: Partial<RefundRequest>,
  scope: CoSignScope,
): Promise<PartialSignatureBody> {
  if (leg.legacy !== undefined) throw noCooperativeLegacySpend();
  const clientNonce = hexBytes(request.pubNonce, 'pubNonce');
  // Checked before anything is recorded, so a request that can get no signature records nothing.
  try {
    checkPublicNonce(clientNonce);
  } catch {
    throw invalidParameter('pubNonce');
  }
  const txHex = hex.encode(hexBytes(request.transaction, 'transaction'));
  const chain = legChain(ctx, leg);
  try {
    const spend = chain.clientSpend(txHex, request.index as number);
    const recorded = leg.lockup;
    if (scope.recordedLockupOnly && (recorded === undefined || spend.input.txid !== recorded.txid || spend.input.vout !== recorded.vout)) {
      throw notSpendingLockup();
    }
    const { script, sighash } = await spend.sighash();
    if (script !== leg.script) throw notSpendingLockup();
    await scope.beforeSigning?.();
    const signed = signWithMusig(chain.musig(signerOf(ctx, leg)), hex.decode(leg.clientPublicKey), sighash, clientNonce);
    return { pubNonce: hex.encode(signed.pubNonce), partialSignature: hex.encode(signed.partialSignature) };
  } catch (error) {
    if (error instanceof ClientTransactionError) throw clientTransactionRefusal(error);
    if (error instanceof InvalidNonce) throw invalidParameter('pubNonce');
    throw error;
  }
}
