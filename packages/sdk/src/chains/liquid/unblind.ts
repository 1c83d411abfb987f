// Unblinding a confidential output with its blinding private key: ECDH with the output's nonce commitment gives
// the range proof's rewind nonce, which recovers value, asset and both blinders. Ferry reads its swap lockups'
// amounts this way; the devnet's Elements wallet answers unblindrawtransaction and listunspent with it.
import { AssetHash, ElementsValue, confidential, type Secp256k1Interface, type TxOutput } from 'liquidjs-lib';

export interface Unblinded {
  value: bigint; // sat
  asset: string; // asset id as elementsd shows it (byte-reversed hex)
  valueBlinder: Uint8Array; // 32 bytes, elementsd's `amountblinder` (shown reversed)
  assetBlinder: Uint8Array; // 32 bytes, elementsd's `assetblinder` (shown reversed)
}

export class UnblindError extends Error {}

const ZERO32 = new Uint8Array(32);

/** An explicit output's value and asset, with zero blinders (what elementsd lists for unblinded coins). */
export function explicitOutput(output: TxOutput): Unblinded {
  const value = ElementsValue.fromBytes(output.value);
  const asset = AssetHash.fromBytes(output.asset);
  if (value.isConfidential || asset.isConfidential) throw new UnblindError('output is confidential');
  return { value: BigInt(value.number), asset: asset.hex, valueBlinder: ZERO32, assetBlinder: ZERO32 };
}

export const isConfidentialOutput = (output: TxOutput): boolean =>
  ElementsValue.fromBytes(output.value).isConfidential || AssetHash.fromBytes(output.asset).isConfidential;

/**
 * Rewinds the output's range proof with the nonce ECDH(nonce commitment, blinding key) and checks the recovered
 * asset and blinder against the asset commitment; a wrong key (or a tampered proof) throws UnblindError.
 */
export function unblindOutput(zkp: Secp256k1Interface, output: TxOutput, blindingPrivateKey: Uint8Array): Unblinded {
  if (!isConfidentialOutput(output)) return explicitOutput(output);
  let result: confidential.UnblindOutputResult;
  try {
    result = new confidential.Confidential(zkp).unblindOutputWithKey(output, Buffer.from(blindingPrivateKey));
  } catch (error) {
    throw new UnblindError(`cannot unblind output: ${(error as Error).message}`);
  }
  return {
    value: BigInt(result.value),
    asset: Buffer.from(result.asset).reverse().toString('hex'),
    valueBlinder: new Uint8Array(result.valueBlindingFactor),
    assetBlinder: new Uint8Array(result.assetBlindingFactor),
  };
}
