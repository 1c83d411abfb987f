// The BOLT12 codec against the specification's test vectors (test/fixtures/bolt12, copied from lightning/bolts
// bolt12/*.json) and against boltz-bolt12, an independent decoder (LDK compiled to WebAssembly).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { schnorr, secp256k1 } from '@noble/curves/secp256k1.js';
import { hex } from '@scure/base';
import {
  decodeBolt12String, decodeInvoiceRequest, decodeOffer, invoiceRequestFromBytes, encodeTlvStream, merkleRoot, offerString, parseTlvStream, signatureDigest,
} from '@ferry/sdk/lightning/bolt12/index.js';
import { boltzBolt12 } from '../helpers/boltz-bolt12.ts';

const vectors = (name: string) => JSON.parse(readFileSync(new URL(`../fixtures/bolt12/${name}`, import.meta.url), 'utf8'));

test('format strings: case, "+" joins and whitespace as the spec lists them', () => {
  for (const vector of vectors('format-string-test.json') as { comment: string; valid: boolean; string: string }[]) {
    if (vector.valid) {
      const offer = decodeOffer(vector.string);
      assert.equal(offerString(offer), vector.string.replace(/\+\s*/g, '').toLowerCase(), vector.comment);
    } else {
      assert.throws(() => decodeBolt12String(vector.string), vector.comment);
    }
  }
});

test('offers: every valid vector decodes to its listed fields and re-encodes to the same string; every invalid one is refused', () => {
  for (const vector of vectors('offers-test.json') as { description: string; valid: boolean; bolt12: string; fields?: { type: number; length: number; hex: string }[] }[]) {
    if (!vector.valid) {
      // some malformed vectors fail before the fault their description names (their lengths are off too): refused all the same
      assert.throws(() => decodeOffer(vector.bolt12), vector.description);
      continue;
    }
    const offer = decodeOffer(vector.bolt12);
    assert.deepEqual(
      offer.records.map((r) => ({ type: Number(r.type), length: r.value.length, hex: hex.encode(r.value) })),
      vector.fields,
      vector.description,
    );
    assert.equal(offerString(offer), vector.bolt12, vector.description);
    assert.deepEqual(encodeTlvStream(offer.records), offer.bytes);
  }
});

test('offers: decoded fields', () => {
  const byName = new Map((vectors('offers-test.json') as { description: string; bolt12: string }[]).map((v) => [v.description, v.bolt12]));
  const amount = decodeOffer(byName.get('with amount')!).fields;
  assert.equal(amount.amount, 10_000n); // 10000msat
  assert.equal(amount.description, 'Test vectors');
  assert.equal(hex.encode(amount.issuerId!), '02eec7245d6b7d2ccb30380bfbe2a3648cd7a942653f5aa340edcea1f283686619');
  const usd = decodeOffer(byName.get('with currency')!).fields;
  assert.deepEqual([usd.currency, usd.amount], ['USD', 10_000n]); // $100.00 in cents
  assert.equal(decodeOffer(byName.get('with issuer')!).fields.issuer, 'https://bolt12.org BOLT12 industries');
  assert.equal(decodeOffer(byName.get('with unlimited (or unknown) quantity')!).fields.quantityMax, 0n);
  const blinded = decodeOffer(byName.get('with blinded path via Bob (0x424242...), path_key 020202...')!).fields.paths![0];
  assert.deepEqual(blinded.hops.map((h) => hex.encode(h.encryptedRecipientData)), ['00'.repeat(16), '11'.repeat(8)]);
  assert.equal(decodeOffer(byName.get('with expiry')!).fields.absoluteExpiry, 2051184600n); // 2035-01-01 00:00 at UTC+10:30 (the vectors' author's zone)
  assert.equal(decodeOffer(byName.get('with quantity')!).fields.quantityMax, 5n);
  const chains = decodeOffer(byName.get('for bitcoin or liquidv1')!).fields.chains!;
  assert.equal(chains.length, 2);
  assert.equal(hex.encode(chains[1]), '6fe28c0ab6f1b372c1a6a246ae63f74f931e8365e15a089c68d6190000000000');
  const scid = decodeOffer(byName.get('same, with blinded path first_node_id using sciddir')!).fields.paths![0];
  assert.deepEqual(scid.firstNode, { direction: 0, shortChannelId: 42n });
  const twoPaths = decodeOffer(byName.get('... and with second blinded path via 1x2x3 (direction 1), path_key 020202...')!).fields;
  assert.equal(decodeOffer(byName.get('with no issuer_id and blinded path via Bob (0x424242...), path_key 020202...')!).fields.issuerId, undefined);
  assert.deepEqual(twoPaths.paths![1].firstNode, { direction: 1, shortChannelId: (1n << 40n) | (2n << 16n) | 3n });
});

test('Merkle roots and the invoice_request signature of signature-test.json', () => {
  for (const vector of vectors('signature-test.json') as Record<string, unknown>[]) {
    const leaves = vector.leaves as Record<string, string>[];
    if (vector.bolt12 === undefined) {
      // the stream is spelled out in the leaf hashes' names: H(`LnLeaf`,<record>)
      const stream = leaves.map((leaf) => Object.keys(leaf)[0].match(/LnLeaf`,([0-9a-f]+)\)/)![1]).join('');
      assert.equal(hex.encode(merkleRoot(parseTlvStream(hex.decode(stream)))), vector.merkle, String(vector.comment));
      continue;
    }
    const request = decodeInvoiceRequest(vector.bolt12 as string); // verifies the signature by invreq_payer_id
    assert.equal(hex.encode(merkleRoot(request.records)), vector.merkle);
    assert.equal(hex.encode(signatureDigest('invoice_request', 'signature', request.records)), vector['H(signature_tag,merkle)']);
    assert.equal(hex.encode(request.signature), vector.signature);
    // Bob's key (0x4242...) is the payer; Alice's (0x4141...) the issuer
    assert.deepEqual(request.invreq.payerId, secp256k1.getPublicKey(new Uint8Array(32).fill(0x42), true));
    assert.deepEqual(request.offer.issuerId, secp256k1.getPublicKey(new Uint8Array(32).fill(0x41), true));
    assert.equal(request.offer.description, 'A Mathematical Treatise');
    assert.equal(request.offer.currency, 'USD');
    assert.equal(request.offer.amount, 100n);
    assert.ok(schnorr.verify(request.signature, hex.decode(vector['H(signature_tag,merkle)'] as string), request.invreq.payerId!.subarray(1)));
    // one flipped bit anywhere in the signed part breaks it
    const tampered = request.bytes.slice();
    tampered[12] ^= 1; // in offer_description
    assert.throws(() => invoiceRequestFromBytes(tampered), /invalid invoice request signature/);
  }
});

test('boltz-bolt12 reads every valid offer vector as we do', async () => {
  const ldk = await boltzBolt12();
  for (const vector of vectors('offers-test.json') as { description: string; valid: boolean; bolt12: string }[]) {
    if (!vector.valid) continue; // LDK is more lenient than the spec on a few (zero amounts, unknown even features, padding)
    const ours = decodeOffer(vector.bolt12).fields;
    const theirs = new ldk.Offer(vector.bolt12);
    assert.deepEqual(theirs.signing_pubkey && hex.encode(theirs.signing_pubkey), ours.issuerId && hex.encode(ours.issuerId), vector.description);
    assert.equal(theirs.description, ours.description, vector.description);
    if (ours.currency === undefined) assert.equal(theirs.amount, ours.amount, vector.description);
    assert.equal(theirs.paths.length, ours.paths?.length ?? 0, vector.description);
    theirs.paths.forEach((path, i) => {
      assert.deepEqual(path.blinding_point, ours.paths![i].pathKey);
      assert.deepEqual(path.hops.map((h) => hex.encode(h.pubkey)), ours.paths![i].hops.map((h) => hex.encode(h.blindedNodeId)));
    });
    theirs.free();
  }
});
