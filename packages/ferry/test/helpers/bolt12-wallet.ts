// What a wallet makes for BOLT12: an offer of its own key, and an invoice for a payment hash whose one blinded
// path leads through a given node (Ferry's, for a reverse swap Ferry is to hold).
import { secp256k1 } from '@noble/curves/secp256k1.js';
import {
  createInvoice, createInvoiceRequest, decodeOffer, encodeInvoice, encodeOffer, type BlindedPath, type Invoice, type InvoiceRequest,
} from '@ferry/sdk/lightning/bolt12/index.js';

const point = () => secp256k1.getPublicKey(secp256k1.utils.randomSecretKey(), true);

export const pathThrough = (node: Uint8Array): BlindedPath => ({
  firstNode: { nodeId: node },
  pathKey: point(),
  hops: [{ blindedNodeId: point(), encryptedRecipientData: new Uint8Array(16) }],
});

/** The wallet's signed invoice answering `request`, for `paymentHash`, its one path leading through `node`. */
export function invoiceAnswering(request: InvoiceRequest, walletSecret: Uint8Array, node: Uint8Array, paymentHash: Uint8Array, cltvExpiryDelta = 400): Invoice {
  const amountMsat = request.invreq.amountMsat!;
  return createInvoice(request, {
    amountMsat,
    createdAt: BigInt(Math.floor(Date.now() / 1000)),
    relativeExpiry: 3600n,
    paymentHash,
    paths: [pathThrough(node)],
    blindedPay: [{ feeBaseMsat: 0, feeProportionalMillionths: 0, cltvExpiryDelta, htlcMinimumMsat: 1n, htlcMaximumMsat: amountMsat, features: new Uint8Array() }],
  }, walletSecret);
}

/** A signed invoice of 50,000 sat for `paymentHash`, answering a request for a fresh offer, paid through `node`. */
export function bolt12InvoiceThrough(node: Uint8Array, paymentHash: Uint8Array, cltvExpiryDelta = 400): string {
  const walletSecret = secp256k1.utils.randomSecretKey();
  const offer = decodeOffer(encodeOffer({ description: 'wallet', issuerId: secp256k1.getPublicKey(walletSecret, true) }));
  const request = createInvoiceRequest(offer, { metadata: new Uint8Array(8), amountMsat: 50_000_000n }, secp256k1.utils.randomSecretKey());
  return encodeInvoice(invoiceAnswering(request, walletSecret, node, paymentHash, cltvExpiryDelta));
}
