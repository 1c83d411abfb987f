// Which invoice requests Ferry takes over from its Lightning node (InvoiceRequestHub.answersFor, asked by the
// onion-message responder): those for an offer a wallet subscribed to, or registered with a webhook — matched by
// the offer's bytes, which the request mirrors — and no others, nor bytes that are no invoice request.
import { OfferRegistry } from '../../src/lightning/bolt12/registry.ts';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { InvoiceRequestHub, defaultInvoiceRequestOptions } from '../../src/api/ws/invoice-requests.ts';
import { createInvoiceRequest, decodeOffer, encodeOffer, type Offer } from '@ferry/sdk/lightning/bolt12/index.js';

const offerOf = (description: string): { offer: Offer; text: string } => {
  const text = encodeOffer({ description, issuerId: secp256k1.getPublicKey(secp256k1.utils.randomSecretKey(), true) });
  return { offer: decodeOffer(text), text };
};
const requestBytes = (offer: Offer) => createInvoiceRequest(offer, { metadata: randomBytes(8), amountMsat: 1000n }, secp256k1.utils.randomSecretKey()).bytes;

test('subscribed or webhook-registered offers are answered for; other offers and garbage are not', async () => {
  const registry = new OfferRegistry();
  const hub = new InvoiceRequestHub(defaultInvoiceRequestOptions, {
    find: (bytes) => registry.find(bytes),
    ask: async () => ({ status: 500, body: '' }),
  });
  const [subscribed, hooked, registeredOnly, stranger] = ['subscribed', 'hooked', 'registered', 'stranger'].map(offerOf);
  hub.subscribe({ deliver: () => {} }, [{ bytes: subscribed.offer.bytes, offer: subscribed.text }]);
  await registry.add('BTC', hooked.offer, hooked.text, 'https://wallet.example/hook');
  await registry.add('BTC', registeredOnly.offer, registeredOnly.text);

  assert.equal(await hub.answersFor(requestBytes(subscribed.offer)), true, 'a wallet subscribed to it');
  assert.equal(await hub.answersFor(requestBytes(hooked.offer)), true, 'its webhook answers');
  assert.equal(await hub.answersFor(requestBytes(registeredOnly.offer)), false, 'registered without a webhook, nobody subscribed');
  assert.equal(await hub.answersFor(requestBytes(stranger.offer)), false, 'not Ferry\'s');
  assert.equal(await hub.answersFor(randomBytes(50)), false, 'no invoice request');
  const unsigned = requestBytes(subscribed.offer).slice(0, -10);
  assert.equal(await hub.answersFor(unsigned), false, 'a request that does not read');
});
