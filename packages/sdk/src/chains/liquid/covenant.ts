// Claim covenants (Liquid reverse swaps): boltz-core's covenant claim leaf lets anyone holding the preimage claim the
// lockup, but only with output 0 paying the receiver's script the committed amount of explicit L-BTC. The terms of
// that leaf from an address, the amount a service commits to (what the lockup holds less the claim's fee and the one
// satoshi the claim's blinded OP_RETURN needs), and the amount a leaf commits to, read back for checking.
import { script as bscript } from 'liquidjs-lib';
import type { ClaimCovenantTerms } from '../backend.ts';
import type { Network } from '../../keys/index.ts';
import { decodeAddress, policyAsset } from './network.ts';

/** What a covenant claim's blinded OP_RETURN output carries, so that the claim's blinding factors balance. */
export const COVENANT_BLINDED_SAT = 1;

/**
 * Discounted vbytes of a covenant claim, with headroom: larger than a key-path claim (the leaf and its control block in
 * the witness, a second output with its range proof). Measured about 270 on the devnet.
 */
export const COVENANT_CLAIM_VSIZE = 320;

/** The fee a covenant claim pays at `feeRate` sat/vbyte (Liquid's 0.1 floor), never less than a key-path claim's. */
export const covenantClaimFee = (feeRate: number, claimFee: number): number => Math.max(claimFee, Math.ceil(Math.max(feeRate, 0.1) * COVENANT_CLAIM_VSIZE));

/** The amount output 0 of a covenant claim pays: the lockup less the claim's fee and the blinded satoshi. */
export const covenantExpectedAmount = (onchainAmount: number, claimFee: number): number => onchainAmount - claimFee - COVENANT_BLINDED_SAT;

/** The leaf's terms for a claim to `address` (confidential or not: output 0 is explicit either way). Throws on a bad address. */
export function claimCovenantTerms(address: string, expectedAmount: number, network: Network): ClaimCovenantTerms {
  return { outputScript: decodeAddress(address, network).script, expectedAmount, assetHash: policyAsset(network) };
}

/** The amount a covenant leaf (hex) commits output 0 to: its last push, 8 bytes little-endian, before OP_EQUAL. */
export function committedAmount(leafHex: string): number | undefined {
  const chunks = bscript.decompile(Buffer.from(leafHex, 'hex'));
  if (chunks === null || chunks.length < 2 || chunks[chunks.length - 1] !== 0x87) return undefined;
  const push = chunks[chunks.length - 2];
  if (!Buffer.isBuffer(push) || push.length !== 8) return undefined;
  const amount = push.readBigUInt64LE(0);
  return amount <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(amount) : undefined;
}
