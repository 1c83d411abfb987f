// BOLT12 offers in the database, on both dialects: registered once per currency, found by the hash of their bytes
// under any currency, their webhook set and removed, deleted; and still there for a second storage on the same
// database (another instance, or Ferry after a restart).
import { OfferRegistry } from '../../src/lightning/bolt12/registry.ts';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { createRepositories } from '../../src/db/index.ts';
import { decodeOffer, encodeOffer } from '@ferry/sdk/lightning/bolt12/index.js';
import { onBothDialects } from './harness.ts';

const offerText = (description: string) => encodeOffer({ description, issuerId: secp256k1.getPublicKey(new Uint8Array(32).fill(0x42), true) });

onBothDialects('bolt12 offers', (h) => {
  test('an offer is registered once per currency, found by its bytes, its webhook changed, and deleted', async () => {
    const db = await h.open();
    const registry = new OfferRegistry(createRepositories(db).offers);
    const text = offerText('persisted');
    const offer = decodeOffer(text);
    assert.equal(await registry.add('BTC', offer, text, 'https://wallet.example/hook'), true);
    assert.equal(await registry.add('BTC', offer, text), false, 'registered already');
    assert.deepEqual(await registry.get('BTC', offer), { offer: text, url: 'https://wallet.example/hook' });
    assert.deepEqual(await registry.find(offer.bytes), { offer: text, url: 'https://wallet.example/hook' });
    assert.equal(await registry.get('L-BTC', offer), undefined);
    assert.equal(await registry.setUrl('BTC', offer, undefined), true);
    assert.deepEqual(await registry.get('BTC', offer), { offer: text });
    assert.equal(await registry.setUrl('L-BTC', offer, 'https://x.example'), false, 'not registered for that currency');
    assert.equal(await registry.delete('BTC', offer), true);
    assert.equal(await registry.delete('BTC', offer), false);
    assert.equal(await registry.find(offer.bytes), undefined);
  });

  test('a second storage on the same database sees the offers (another instance; Ferry after a restart)', async () => {
    const url = await h.freshUrl();
    const first = await h.open(url);
    const text = offerText('shared');
    await new OfferRegistry(createRepositories(first).offers).add('BTC', decodeOffer(text), text, 'https://wallet.example/a');
    await first.close();
    const second = await h.open(url);
    assert.deepEqual(await new OfferRegistry(createRepositories(second).offers).find(decodeOffer(text).bytes), { offer: text, url: 'https://wallet.example/a' });
  });
});
