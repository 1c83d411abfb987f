// New-asset issuances built with liquidjs-lib's own PSET issuance support (Updater.addInIssuance, ZKPGenerator's
// issuance blinding), independent of the devnet wallet's builder: one P2WPKH coin issues an asset (and tokens),
// its L-BTC goes to blinded change and an explicit fee; `forgeIssued` makes the input create less than it pays.
import {
  Blinder, Creator, CreatorInput, Extractor, Pset, Transaction, Updater, ZKPGenerator, ZKPValidator,
  issuance, type Secp256k1Interface, type TxOutput,
} from 'liquidjs-lib';
import { REGTEST_POLICY_ASSET } from '@ferry/devnet/elements/verify/index.js';
import { loadZkp } from '@ferry/sdk/chains/liquid/zkp.js';
import { FEE, newKey, p2wpkh, signP2wpkh, type Key } from './liquid.ts';

export interface IssuanceCoin {
  txid: string;
  vout: number;
  output: TxOutput;
  value: number; // sat of L-BTC
  owner: Key; // its P2WPKH key
  blindingKey?: Buffer; // private, when the coin is confidential
}

export interface IssueOptions {
  assetAmount: number;
  tokenAmount: number;
  blinded: boolean; // blind the issued amounts
  /** Forge: the input issues only this much of the asset while the asset output still pays assetAmount. */
  forgeIssued?: number;
  fee?: number; // sat of L-BTC; default FEE (too little for a node's relay floor once the issuance is blinded)
}

export interface BuiltIssuance {
  tx: Transaction;
  asset: string; // ids as elementsd displays them
  token: string;
  assetOwner: { script: Buffer; blindingKey: Buffer }; // the asset output's script and blinding private key
}

const display = (bytes: Buffer): string => Buffer.from(bytes).reverse().toString('hex');

export async function issueFrom(coin: IssuanceCoin, options: IssueOptions): Promise<BuiltIssuance> {
  const zkp = (await loadZkp()) as unknown as Secp256k1Interface;
  const pset = Creator.newPset();
  pset.addInput(new CreatorInput(coin.txid, coin.vout, 0xfffffffd).toPartialInput());
  const updater = new Updater(pset);
  updater.addInWitnessUtxo(0, coin.output).addInSighashType(0, Transaction.SIGHASH_ALL);
  const [assetKey, tokenKey, changeKey] = [newKey(), newKey(), newKey()];
  const assetScript = p2wpkh(newKey());
  updater.addInIssuance(0, {
    assetAmount: options.assetAmount,
    tokenAmount: options.tokenAmount,
    assetAddress: { script: assetScript, blindingPublicKey: assetKey.publicKey },
    tokenAddress: { script: p2wpkh(newKey()), blindingPublicKey: tokenKey.publicKey },
    blindedIssuance: options.blinded,
  });
  const fee = options.fee ?? FEE;
  updater.addOutputs([
    { script: p2wpkh(newKey()), amount: coin.value - fee, asset: REGTEST_POLICY_ASSET, blindingPublicKey: changeKey.publicKey, blinderIndex: 0 },
    { amount: fee, asset: REGTEST_POLICY_ASSET },
  ]);
  if (options.forgeIssued !== undefined) pset.inputs[0].issuanceValue = options.forgeIssued;

  const generator = new ZKPGenerator(zkp, ZKPGenerator.WithBlindingKeysOfInputs(coin.blindingKey ? [coin.blindingKey] : []));
  const owned = generator.unblindInputs(pset);
  const issuanceBlindingArgs = options.blinded ? generator.blindIssuances(pset, { 0: newKey().privateKey }) : undefined;
  const outputBlindingArgs = generator.blindOutputs(pset, Pset.ECCKeysGenerator(zkp.ecc));
  new Blinder(pset, owned, new ZKPValidator(zkp), generator).blindLast({ issuanceBlindingArgs, outputBlindingArgs });
  signP2wpkh(pset, 0, coin.owner);

  const entropy = issuance.generateEntropy({ txHash: Buffer.from(coin.txid, 'hex').reverse(), vout: coin.vout });
  return {
    tx: Extractor.extract(pset),
    asset: display(issuance.calculateAsset(entropy)),
    token: display(issuance.calculateReissuanceToken(entropy, options.blinded)),
    assetOwner: { script: assetScript, blindingKey: assetKey.privateKey },
  };
}
