// The onion-message codec against BOLT 4's own test vectors, copied unchanged from github.com/lightning/bolts
// (bolt04/route-blinding-test.json and bolt04/blinded-onion-message-onion-test.json at commit a3772650d8eb, March 2026)
// into test/lightning/fixtures/bolt04-*.json: blinded paths are created and unblinded to the vectors' bytes, the
// onion message to Dave is built to the vector's exact packet and every hop peels its layer as the vector says.
// Then our own cases: a request with a reply path and the reply along it, the larger packet, tampering.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { hex } from '@scure/base';
import { blindedSecretOf } from '../../src/lightning/onion/blinded-path.ts';
import {
  OnionError, buildOnionMessage, createBlindedPath, decodeOnionMessageWire, encodeOnionMessageWire, encodeRecipientData, peelOnionMessage,
  unblindHop,
} from '../../src/lightning/onion/index.ts';

const fixture = (name: string) => JSON.parse(readFileSync(new URL(`fixtures/bolt04-${name}.json`, import.meta.url), 'utf8'));
const routeBlinding = fixture('route-blinding-test');
const onionVector = fixture('blinded-onion-message-onion-test');
const h = hex.decode;
const pub = (secret: Uint8Array) => secp256k1.getPublicKey(secret, true);

test('route blinding: the two joined paths of the vector are created hop for hop', () => {
  const hops = routeBlinding.generate.hops as Record<string, string>[];
  // Bob blinds Bob -> Carol with his session key, Dave blinds Dave -> Eve with his
  for (const [start, end] of [[0, 2], [2, 4]]) {
    const path = createBlindedPath(h(hops[start].session_key), hops.slice(start, end).map((hop) => ({ nodeId: h(hop.node_id), data: h(hop.encoded_tlvs) })));
    assert.equal(hex.encode(path.pathKey), hops[start].path_key);
    path.hops.forEach((hop, i) => {
      assert.equal(hex.encode(hop.blindedNodeId), hops[start + i].blinded_node_id);
      assert.equal(hex.encode(hop.encryptedRecipientData), hops[start + i].encrypted_data);
    });
  }
});

test('route blinding: each hop unblinds its data, its blinded key and the next path key', () => {
  const route = routeBlinding.route.hops as Record<string, string>[];
  (routeBlinding.unblind.hops as Record<string, string>[]).forEach((hop, i) => {
    const secret = h(hop.node_privkey);
    const unblinded = unblindHop(secret, h(hop.path_key), h(route[i].encrypted_data));
    assert.equal(hex.encode(encodeRecipientData(unblinded.data)), hop.decrypted_data);
    assert.equal(hex.encode(blindedSecretOf(secret, h(hop.path_key)).blindedSecret), hop.blinded_privkey);
    if (hop.next_path_key !== undefined) assert.equal(hex.encode(unblinded.nextPathKey), hop.next_path_key_override ?? hop.next_path_key);
  });
});

/** Dave's path Bob -> Carol -> Dave as the vector generates it. */
function davesPath() {
  const [, ...rest] = onionVector.generate.hops as Record<string, string>[];
  const keys = (onionVector.decrypt.hops as Record<string, string>[]).slice(1).map((hop) => pub(h(hop.privkey)));
  return createBlindedPath(h(rest[0].path_key_secret), rest.map((hop, i) => ({ nodeId: keys[i], data: h(hop.encrypted_data_tlv) })));
}

test('onion message: Dave\'s path joined to Alice\'s hop builds the vector\'s exact packet', () => {
  const generate = onionVector.generate.hops as Record<string, string>[];
  const path = davesPath();
  path.hops.forEach((hop, i) => {
    assert.equal(hex.encode(hop.blindedNodeId), generate[i + 1].blinded_node_id);
    assert.equal(hex.encode(hop.encryptedRecipientData), generate[i + 1].encrypted_recipient_data);
  });
  const alice = pub(h(onionVector.decrypt.hops[0].privkey));
  const message = buildOnionMessage({
    via: [alice],
    destination: path,
    payload: { unknown: [{ type: 1n, value: h(onionVector.onionmessage.unknown_tag_1) }] },
    sessionKey: h(onionVector.generate.session_key),
    viaPathSecret: h(generate[0].path_key_secret),
  });
  assert.equal(hex.encode(message.firstNodeId), onionVector.route.first_node_id);
  assert.equal(hex.encode(message.pathKey), onionVector.route.first_path_key);
  assert.equal(hex.encode(message.packet), onionVector.onionmessage.onion_message_packet);
  assert.equal(hex.encode(encodeOnionMessageWire(message)), onionVector.decrypt.hops[0].onion_message);
});

test('onion message: Alice, Bob and Carol forward, Dave reads hello and his path_id', () => {
  const hops = onionVector.decrypt.hops as { privkey: string; onion_message: string; next_node_id?: string; tlvs?: Record<string, string> }[];
  hops.forEach((hop, i) => {
    const incoming = decodeOnionMessageWire(h(hop.onion_message));
    const peeled = peelOnionMessage(h(hop.privkey), incoming.pathKey, incoming.packet);
    if (i < hops.length - 1) {
      assert.equal(peeled.kind, 'forward');
      if (peeled.kind !== 'forward') return;
      assert.equal(hex.encode(peeled.nextNodeId), hop.next_node_id);
      assert.equal(hex.encode(encodeOnionMessageWire({ pathKey: peeled.nextPathKey, packet: peeled.packet })), hops[i + 1].onion_message);
      return;
    }
    assert.equal(peeled.kind, 'final');
    if (peeled.kind !== 'final') return;
    assert.deepEqual(peeled.payload.unknown, [{ type: 1n, value: h(hop.tlvs!.unknown_tag_1) }]);
    assert.equal(hex.encode(peeled.payload.encryptedRecipientData!), hop.tlvs!.encrypted_recipient_data);
    assert.equal(hex.encode(peeled.recipientData.pathId!), onionVector.generate.hops[3].tlvs.path_id);
  });
});

const secretOf = (byte: number) => new Uint8Array(32).fill(byte);

test('an invoice request with a reply path, and the reply through the responder\'s node back along it', () => {
  const [payer, issuer, relay] = [secretOf(0x11), secretOf(0x22), secretOf(0x33)];
  const pathId = secretOf(0x99);
  const replyPath = createBlindedPath(secretOf(0x44), [{ nodeId: pub(payer), data: encodeRecipientData({ pathId }) }]);
  const offerPath = createBlindedPath(secretOf(0x55), [{ nodeId: pub(issuer), data: encodeRecipientData({ pathId: secretOf(0x77) }) }]);
  const request = buildOnionMessage({ destination: offerPath, payload: { invoiceRequest: h('0a0b0c'), replyPath } });
  assert.equal(hex.encode(request.firstNodeId), hex.encode(pub(issuer)));
  const atIssuer = peelOnionMessage(issuer, request.pathKey, request.packet);
  assert.equal(atIssuer.kind, 'final');
  if (atIssuer.kind !== 'final') return;
  assert.deepEqual(atIssuer.payload.invoiceRequest, h('0a0b0c'));
  assert.deepEqual(atIssuer.recipientData.pathId, secretOf(0x77));
  assert.deepEqual(atIssuer.payload.replyPath, replyPath);

  // the reply goes [relay] + the reply path: the relay peels first and forwards to the payer
  const invoice = new Uint8Array(2000).fill(7); // too large for 1300 bytes: the 32768-byte variant
  const reply = buildOnionMessage({ via: [pub(relay)], destination: atIssuer.payload.replyPath!, payload: { invoice } });
  assert.equal(reply.packet.length, 1 + 33 + 32768 + 32);
  const atRelay = peelOnionMessage(relay, reply.pathKey, reply.packet);
  assert.equal(atRelay.kind, 'forward');
  if (atRelay.kind !== 'forward') return;
  assert.deepEqual(atRelay.nextNodeId, pub(payer));
  const atPayer = peelOnionMessage(payer, atRelay.nextPathKey, atRelay.packet);
  assert.equal(atPayer.kind, 'final');
  if (atPayer.kind !== 'final') return;
  assert.deepEqual(atPayer.payload.invoice, invoice);
  assert.deepEqual(atPayer.recipientData.pathId, pathId);
  // the payer cannot be addressed by anyone else's key, and a flipped byte fails the HMAC
  assert.throws(() => peelOnionMessage(relay, atRelay.nextPathKey, atRelay.packet), OnionError);
  const tampered = atRelay.packet.slice();
  tampered[100] ^= 1;
  assert.throws(() => peelOnionMessage(payer, atRelay.nextPathKey, tampered), /HMAC/);
});

test('undecodable onions are OnionErrors', () => {
  const key = pub(secretOf(1));
  assert.throws(() => peelOnionMessage(secretOf(2), key, new Uint8Array(10)), OnionError);
  assert.throws(() => peelOnionMessage(secretOf(2), new Uint8Array(33), new Uint8Array(1366)), OnionError);
  assert.throws(() => decodeOnionMessageWire(h('0201')), OnionError);
});
