// Swap HTLCs for tests, built with boltz-core exactly as a Boltz wallet builds them: lockup scripts and
// addresses for every output kind, and signed claim / refund / cooperative (MuSig2 key-path) spends.
// Every builder can be told to misbehave (wrong preimage or key, tampered signature, other nLockTime)
// so tests can prove that the node rejects what Bitcoin Core would reject.
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { randomBytes } from '@noble/hashes/utils.js';
import { hex } from '@scure/base';
import { Address, OutScript, RawTx, Script, SigHash, Transaction } from '@scure/btc-signer';
import { hash160, signECDSA } from '@scure/btc-signer/utils.js';
import {
  Musig,
  Networks,
  OutputType,
  Scripts,
  TaprootUtils,
  constructClaimTransaction,
  constructRefundTransaction,
  reverseSwapScript,
  reverseSwapTree,
  swapScript,
  swapTree,
} from 'boltz-core';
import type { ClaimDetails, Types } from 'boltz-core';
import type { Prevout } from '@ferry/devnet/bitcoin/verify/index.js';

/** A secp256k1 key pair; `publicKey` is the 33-byte compressed key. */
export interface KeyPair {
  privateKey: Uint8Array;
  publicKey: Uint8Array;
}

/** Deterministic key: private key = sha256(UTF-8 label), as in test/fixtures/taproot-swap-trees.json (a copy of shared/vectors). */
export function keyFromLabel(label: string): KeyPair {
  const privateKey = sha256(new TextEncoder().encode(label));
  return { privateKey, publicKey: secp256k1.getPublicKey(privateKey, true) };
}

/** The swap service's key (same as test/fixtures/taproot-swap-trees.json). */
export const serviceKey = keyFromLabel('boltz-compatible service key');
/** The wallet user's claim/refund key (same as the vectors). */
export const clientKey = keyFromLabel('client refund/claim key');
/** Owner of plain P2WPKH/P2PKH coins, and the default destination of every spend. */
export const walletKey = keyFromLabel('ferry test wallet key');
/** A key no script names: sign with it to produce a "wrong key" spend. */
export const strangerKey = keyFromLabel('ferry test stranger key');

export interface Preimage {
  preimage: Uint8Array; // 32 bytes
  preimageHash: Uint8Array; // sha256(preimage)
}

export function preimageOf(preimage: Uint8Array): Preimage {
  return { preimage, preimageHash: sha256(preimage) };
}

export function randomPreimage(): Preimage {
  return preimageOf(randomBytes(32));
}

/** Lockup output kinds: boltz-core's Bech32, Compatibility, Legacy and Taproot. */
export type HtlcKind = 'p2wsh' | 'p2sh-p2wsh' | 'p2sh' | 'taproot';
/** submarine: the client locks, the service claims. reverse: the service locks, the client claims. */
export type SwapDirection = 'submarine' | 'reverse';

export interface HtlcOptions {
  kind: HtlcKind;
  direction?: SwapDirection; // default 'submarine'
  service?: KeyPair; // default serviceKey
  client?: KeyPair; // default clientKey
  preimage?: Preimage; // default randomPreimage()
  timeoutBlockHeight?: number; // default 500
}

interface HtlcBase {
  direction: SwapDirection;
  service: KeyPair;
  client: KeyPair;
  claimKey: KeyPair; // service for submarine swaps, client for reverse swaps
  refundKey: KeyPair; // the other one
  preimage: Uint8Array;
  preimageHash: Uint8Array;
  timeoutBlockHeight: number;
  outputScript: Uint8Array; // scriptPubKey of the lockup output
  address: string; // regtest (bcrt1… / 2…) address of the lockup output
}

export interface LegacyHtlc extends HtlcBase {
  kind: 'p2wsh' | 'p2sh-p2wsh' | 'p2sh';
  redeemScript: Uint8Array; // swapScript (submarine) or reverseSwapScript (reverse)
}

export interface TaprootHtlc extends HtlcBase {
  kind: 'taproot';
  swapTree: Types.SwapTree; // swapTree (submarine) or reverseSwapTree (reverse)
  internalKey: Uint8Array; // 32-byte MuSig2 aggregate of [service, client], service first
  tweakedKey: Uint8Array; // 32-byte output key committed to by the lockup script
}

export type Htlc = LegacyHtlc | TaprootHtlc;

const legacyType = { p2wsh: OutputType.Bech32, 'p2sh-p2wsh': OutputType.Compatibility, p2sh: OutputType.Legacy } as const;

export function makeHtlc(options: HtlcOptions & { kind: 'taproot' }): TaprootHtlc;
export function makeHtlc(options: HtlcOptions & { kind: LegacyHtlc['kind'] }): LegacyHtlc;
export function makeHtlc(options: HtlcOptions): Htlc;
export function makeHtlc(options: HtlcOptions): Htlc {
  const direction = options.direction ?? 'submarine';
  const service = options.service ?? serviceKey;
  const client = options.client ?? clientKey;
  const { preimage, preimageHash } = options.preimage ?? randomPreimage();
  const timeoutBlockHeight = options.timeoutBlockHeight ?? 500;
  const [claimKey, refundKey] = direction === 'submarine' ? [service, client] : [client, service];
  const base = { direction, service, client, claimKey, refundKey, preimage, preimageHash, timeoutBlockHeight };

  if (options.kind === 'taproot') {
    const build = direction === 'submarine' ? swapTree : reverseSwapTree;
    const tree = build(false, preimageHash, claimKey.publicKey, refundKey.publicKey, timeoutBlockHeight);
    const musig = Musig.create(service.privateKey, [service.publicKey, client.publicKey]);
    const tweaked = TaprootUtils.tweakMusig(musig, tree.tree);
    const outputScript = Scripts.p2trOutput(tweaked.aggPubkey);
    return {
      ...base,
      kind: 'taproot',
      swapTree: tree,
      internalKey: TaprootUtils.toXOnly(musig.internalKey),
      tweakedKey: TaprootUtils.toXOnly(tweaked.aggPubkey),
      outputScript,
      address: addressOf(outputScript),
    };
  }

  const build = direction === 'submarine' ? swapScript : reverseSwapScript;
  const redeemScript = build(preimageHash, claimKey.publicKey, refundKey.publicKey, timeoutBlockHeight);
  const outputScript = Scripts.outputFunctionForType(legacyType[options.kind])(redeemScript);
  return { ...base, kind: options.kind, redeemScript, outputScript, address: addressOf(outputScript) };
}

/** An unspent output to be spent: where it is, what it holds, and its scriptPubKey. */
export interface FundingOutput {
  txid: string;
  vout: number;
  value: bigint; // satoshi
  script: Uint8Array;
}

/**
 * Finds the HTLC's lockup output in a funding transaction by its output script. (boltz-core's
 * detectSwap cannot be handed a Transaction built here: under tsx, boltz-core's CommonJS require of
 * @scure/btc-signer yields a second copy of the class, so its instanceof check fails.)
 */
export function findLockupOutput(txHex: string, htlc: Htlc): FundingOutput | undefined {
  const tx = Transaction.fromRaw(hex.decode(txHex), { allowUnknownOutputs: true });
  for (let vout = 0; vout < tx.outputsLength; vout++) {
    const { script, amount } = tx.getOutput(vout);
    if (script !== undefined && amount !== undefined && equalBytes(script, htlc.outputScript)) {
      return { txid: tx.id, vout, value: amount, script };
    }
  }
  return undefined;
}

function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((byte, i) => byte === b[i]);
}

/** How a spend is built; every field has a well-behaved default. */
export interface SpendOptions {
  destinationScript?: Uint8Array; // default P2WPKH of walletKey
  fee?: bigint; // default 1_000 sat; the single output gets value - fee
  outputAmount?: bigint; // overrides fee: fee = value - outputAmount
  lockTime?: number; // nLockTime; default 0 (claims, key spends) or the HTLC timeout (refunds)
  rbf?: boolean; // default true: sequence 0xfffffffd (non-final); false: 0xffffffff
  signingKey?: Uint8Array; // private key that signs instead of the rightful one
  tamperSignature?: boolean; // flip a bit of the signature after signing (stays well-formed)
}

export interface ClaimOptions extends SpendOptions {
  preimage?: Uint8Array; // default the HTLC's preimage; pass another to reveal a wrong one
}

export interface SignedSpend {
  hex: string; // network serialization, with witness
  txid: string;
  outputScript: Uint8Array;
  outputAmount: bigint;
  fee: bigint;
  lockTime: number;
  prevouts: Prevout[]; // the spent output, as the script verifier wants it
}

/** Claim with the preimage: script path for Taproot, the IF branch of the redeem script otherwise. */
export function buildClaim(htlc: Htlc, funding: FundingOutput, options: ClaimOptions = {}): SignedSpend {
  const details = spendDetails(htlc, funding, options.signingKey ?? htlc.claimKey.privateKey);
  const { destinationScript, fee } = outputOf(funding, options);
  const tx = constructClaimTransaction(
    [{ ...details, preimage: options.preimage ?? htlc.preimage } as ClaimDetails],
    destinationScript,
    fee,
    options.rbf ?? true,
    options.lockTime,
  );
  return finish(tx, funding, options);
}

/** Refund after the timeout: refund leaf for Taproot, the CLTV branch of the redeem script otherwise. */
export function buildRefund(htlc: Htlc, funding: FundingOutput, options: SpendOptions = {}): SignedSpend {
  const details = spendDetails(htlc, funding, options.signingKey ?? htlc.refundKey.privateKey);
  const { destinationScript, fee } = outputOf(funding, options);
  const tx = constructRefundTransaction(
    [details as Types.RefundDetails],
    destinationScript,
    options.lockTime ?? htlc.timeoutBlockHeight,
    fee,
    options.rbf ?? true,
  );
  return finish(tx, funding, options);
}

/** Cooperative key-path spend: service and client sign together with MuSig2 (both keys are known in tests). */
export function buildKeyPathSpend(
  htlc: TaprootHtlc,
  funding: FundingOutput,
  options: Omit<SpendOptions, 'signingKey'> = {},
): SignedSpend {
  const { destinationScript, fee } = outputOf(funding, options);
  const tx = constructClaimTransaction(
    [
      {
        type: OutputType.Taproot,
        cooperative: true,
        transactionId: funding.txid,
        vout: funding.vout,
        script: funding.script,
        amount: funding.value,
        privateKey: htlc.service.privateKey,
        preimage: new Uint8Array(32),
      },
    ],
    destinationScript,
    fee,
    options.rbf ?? true,
    options.lockTime,
  );
  const sighash = tx.preimageWitnessV1(0, [funding.script], SigHash.DEFAULT, [funding.value]);
  tx.updateInput(0, { finalScriptWitness: [musigSign(htlc, sighash)] }, true);
  return finish(tx, funding, options);
}

// Both parties' sides of a MuSig2 session, as the service and the wallet would run them apart.
function musigSign(htlc: TaprootHtlc, message: Uint8Array): Uint8Array {
  const keys = [htlc.service.publicKey, htlc.client.publicKey];
  const start = (privateKey: Uint8Array) =>
    TaprootUtils.tweakMusig(Musig.create(privateKey, keys), htlc.swapTree.tree).message(message).generateNonce();
  const service = start(htlc.service.privateKey);
  const client = start(htlc.client.privateKey);
  const clientPartial = client
    .aggregateNonces([[htlc.service.publicKey, service.publicNonce]])
    .initializeSession()
    .signPartial().ourPartialSignature;
  return service
    .aggregateNonces([[htlc.client.publicKey, client.publicNonce]])
    .initializeSession()
    .signPartial()
    .addPartial(htlc.client.publicKey, clientPartial)
    .aggregatePartials();
}

/** A plain P2WPKH output script (OP_0 <hash160(publicKey)>). */
export function p2wpkhScript(publicKey: Uint8Array): Uint8Array {
  return Scripts.p2wpkhOutput(hash160(publicKey));
}

/** A plain P2PKH output script. */
export function p2pkhScript(publicKey: Uint8Array): Uint8Array {
  return Scripts.p2pkhOutput(hash160(publicKey));
}

/** Regtest address of an output script. */
export function addressOf(script: Uint8Array): string {
  return Address(Networks.regtest).encode(OutScript.decode(script));
}

export interface KeySpendOptions extends SpendOptions {
  owner?: KeyPair; // key the funding output pays to; default walletKey
}

/** Spends a P2WPKH output. signingKey makes a stranger sign and present its own public key. */
export function spendP2wpkh(funding: FundingOutput, options: KeySpendOptions = {}): SignedSpend {
  const { tx, privateKey, publicKey } = unsignedKeySpend(funding, options);
  const scriptCode = p2pkhScript(publicKey);
  const sighash = tx.preimageWitnessV0(0, scriptCode, SigHash.ALL, funding.value);
  tx.updateInput(0, { finalScriptWitness: [ecdsa(sighash, privateKey), publicKey] }, true);
  return finish(tx, funding, options);
}

/** Spends a P2PKH output (legacy sighash, signature in the scriptSig). */
export function spendP2pkh(funding: FundingOutput, options: KeySpendOptions = {}): SignedSpend {
  const { tx, privateKey, publicKey } = unsignedKeySpend(funding, options);
  // scure keeps the legacy sighash private; boltz-core reaches it the same way.
  const legacy = (tx as unknown as { preimageLegacy(i: number, s: Uint8Array, h: number): Uint8Array }).preimageLegacy;
  const sighash = legacy.call(tx, 0, funding.script, SigHash.ALL);
  tx.updateInput(0, { finalScriptSig: Script.encode([ecdsa(sighash, privateKey), publicKey]) }, true);
  return finish(tx, funding, options);
}

function unsignedKeySpend(funding: FundingOutput, options: KeySpendOptions) {
  const owner = options.owner ?? walletKey;
  const privateKey = options.signingKey ?? owner.privateKey;
  const publicKey = secp256k1.getPublicKey(privateKey, true);
  const { destinationScript, fee } = outputOf(funding, options);
  const tx = new Transaction({ version: 2, lockTime: options.lockTime ?? 0 });
  tx.addInput({ txid: funding.txid, index: funding.vout, sequence: options.rbf === false ? 0xffffffff : 0xfffffffd });
  tx.addOutput({ script: destinationScript, amount: funding.value - fee });
  return { tx, privateKey, publicKey };
}

function ecdsa(sighash: Uint8Array, privateKey: Uint8Array): Uint8Array {
  const der = signECDSA(sighash, privateKey, true);
  const sig = new Uint8Array(der.length + 1);
  sig.set(der);
  sig[der.length] = SigHash.ALL;
  return sig;
}

function spendDetails(htlc: Htlc, funding: FundingOutput, privateKey: Uint8Array) {
  const base = {
    transactionId: funding.txid,
    vout: funding.vout,
    script: funding.script,
    amount: funding.value,
    privateKey,
  };
  if (htlc.kind === 'taproot') {
    return { ...base, type: OutputType.Taproot as const, swapTree: htlc.swapTree, internalKey: htlc.internalKey };
  }
  return { ...base, type: legacyType[htlc.kind], redeemScript: htlc.redeemScript };
}

function outputOf(funding: FundingOutput, options: SpendOptions) {
  const destinationScript = options.destinationScript ?? p2wpkhScript(walletKey.publicKey);
  const fee = options.outputAmount !== undefined ? funding.value - options.outputAmount : (options.fee ?? 1_000n);
  return { destinationScript, fee };
}

function finish(tx: Transaction, funding: FundingOutput, options: SpendOptions): SignedSpend {
  let bytes = tx.toBytes(true, true);
  let txid = tx.id;
  if (options.tamperSignature) {
    bytes = tamperFirstSignature(bytes);
    txid = Transaction.fromRaw(bytes, { allowUnknownOutputs: true }).id; // a scriptSig is part of the txid
  }
  const output = tx.getOutput(0);
  return {
    hex: hex.encode(bytes),
    txid,
    outputScript: output.script!,
    outputAmount: output.amount!,
    fee: funding.value - output.amount!,
    lockTime: tx.lockTime,
    prevouts: [{ script: funding.script, value: funding.value }],
  };
}

// Flips one bit so the signature stays well-formed (valid DER / 64 bytes) but no longer verifies.
function tamperFirstSignature(bytes: Uint8Array): Uint8Array {
  const raw = RawTx.decode(bytes);
  const witness = raw.witnesses?.[0];
  if (witness !== undefined && witness.length > 0) {
    witness[0] = tamperedSignature(witness[0]);
  } else {
    const chunks = Script.decode(raw.inputs[0].finalScriptSig);
    chunks[0] = tamperedSignature(chunks[0] as Uint8Array);
    raw.inputs[0].finalScriptSig = Script.encode(chunks);
  }
  return RawTx.encode(raw);
}

/** A copy of an ECDSA (DER + sighash byte) or Schnorr signature with one bit flipped; still well-formed. */
export function tamperedSignature(signature: Uint8Array): Uint8Array {
  const out = signature.slice();
  if (out.length === 64 || out.length === 65) {
    out[63] ^= 1; // Schnorr: last byte of s
  } else {
    out[4 + out[3] - 1] ^= 1; // DER: last byte of r
  }
  return out;
}
