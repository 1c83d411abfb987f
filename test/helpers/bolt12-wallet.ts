// What a wallet makes for BOLT12: an offer of its own key, and an invoice for a payment hash whose one blinded
// path leads through a given node (Ferry's, for a reverse swap Ferry is to hold).
import { secp256k1 } from '@noble/curves/secp256k1.js';
import {
  createInvoice, createInvoiceRequest, decodeOffer, encodeInvoice, encodeOffer, type BlindedPath,
} from '../../src/lightning/bolt12/index.ts';

const point = () => secp256k1.getPublicKey(secp256k1.utils.randomSecretKey(), true);

export const pathThrough = (node: Uint8Array): BlindedPath => ({
  firstNode: { nodeId: node },
  pathKey: point(),
  hops: [{ blindedNodeId: point(), encryptedRecipientData: new Uint8Array(16) }],
});

/** A signed invoice of 50,000 sat for `paymentHash`, answering a request for a fresh offer, paid through `node`. */
export function bolt12InvoiceThrough(node: Uint8Array, paymentHash: Uint8Array, cltvExpiryDelta = 400): string {
  const walletSecret = secp256k1.utils.randomSecretKey();
  const offer = decodeOffer(encodeOffer({ description: 'wallet', issuerId: secp256k1.getPublicKey(walletSecret, true) }));
  const request = createInvoiceRequest(offer, { metadata: new Uint8Array(8), amountMsat: 50_000_000n }, secp256k1.utils.randomSecretKey());
  return encodeInvoice(createInvoice(request, {
    amountMsat: 50_000_000n,
    createdAt: BigInt(Math.floor(Date.now() / 1000)),
    paymentHash,
    paths: [pathThrough(node)],
    blindedPay: [{ feeBaseMsat: 0, feeProportionalMillionths: 0, cltvExpiryDelta, htlcMinimumMsat: 1n, htlcMaximumMsat: 10n ** 10n, features: new Uint8Array() }],
  }, walletSecret));
}
