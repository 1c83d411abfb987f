// The devnet LND's macaroons in LND's own format: an admin macaroon laid out byte for byte as a real lnd's
// admin.macaroon (same header, identifier length, storage id and canonical ops), decoded back to its permissions,
// verified only under its node's root key, and granting exactly its ops.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { ClockChain, startLightningDevnet } from '@ferry/devnet/lightning/index.js';
import { freshDir, rest } from '../lightning/helpers.ts';
import { ADMIN_OPS, allows, bakeMacaroon, decodeMacaroon, verifySignature } from '@ferry/devnet/lightning/rest/macaroons.js';

const secret = randomBytes(32).toString('hex');

test("an admin macaroon has a real lnd admin.macaroon's layout: V2, location lnd, a 248-byte bakery-v3 identifier", () => {
  const hex = bakeMacaroon(secret, ADMIN_OPS);
  // 02 version, 01 03 "lnd", 02 f801 (248) identifier: 03 bakery version, 0a 10 the 16-byte nonce ...
  assert.equal(hex.slice(0, 24), '0201036c6e6402f801030a10');
  // ... then storageId "0" and the first ops, sorted by entity, as every lnd admin.macaroon starts
  const ops = '1201301a160a0761646472657373120472656164120577726974651a130a04696e666f120472656164120577';
  assert.equal(hex.slice(56, 56 + ops.length), ops);
  const mac = decodeMacaroon(Buffer.from(hex, 'hex'));
  assert.equal(mac.location, 'lnd');
  assert.equal(mac.storageId, '0');
  assert.equal(mac.ops.length, ADMIN_OPS.length);
  assert.ok(verifySignature(secret, mac));
  assert.equal(verifySignature(randomBytes(32).toString('hex'), mac), false, "another node's root key does not verify it");
});

test('a restricted macaroon grants its ops only, or a uri op its method', () => {
  const mac = decodeMacaroon(Buffer.from(bakeMacaroon(secret, [{ entity: 'invoices', action: 'read' }, { entity: 'uri', action: '/routerrpc.Router/SendPaymentV2' }], '7'), 'hex'));
  assert.equal(mac.storageId, '7');
  assert.ok(verifySignature(secret, mac));
  assert.ok(allows(mac, [{ entity: 'invoices', action: 'read' }], '/lnrpc.Lightning/ListInvoices'));
  assert.equal(allows(mac, [{ entity: 'invoices', action: 'write' }], '/invoicesrpc.Invoices/AddHoldInvoice'), false);
  assert.ok(allows(mac, [{ entity: 'offchain', action: 'write' }], '/routerrpc.Router/SendPaymentV2'));
  const tampered = Buffer.from(bakeMacaroon(secret, [{ entity: 'info', action: 'read' }]), 'hex');
  tampered[tampered.length - 1] ^= 1;
  assert.equal(verifySignature(secret, decodeMacaroon(tampered)), false);
});

test("the devnet LND's REST: a path it does not route is 404 before any macaroon check; a routed one checks it", async () => {
  const dataDir = freshDir();
  const devnet = await startLightningDevnet({ dataDir, chain: new ClockChain(100, `${dataDir}/clock.json`) });
  try {
    const alice = devnet.nodes.alice;
    const unrouted = await rest(alice, 'GET', '/v2/chainkit/bestblock', undefined, '', 'a sub-server path this node does not route');
    assert.deepEqual(unrouted, { status: 404, body: { code: 5, message: 'Not Found', details: [] } });
    const routed = await rest(alice, 'GET', '/v1/getinfo', undefined, '');
    assert.deepEqual(routed, { status: 500, body: { code: 2, message: 'expected 1 macaroon, got 0', details: [] } });
    // alice's admin macaroon lists, bakes and checks
    const baked = await rest<{ macaroon: string }>(alice, 'POST', '/v1/macaroon', { permissions: [{ entity: 'offchain', action: 'read' }], root_key_id: '3' });
    assert.equal(baked.status, 200);
    assert.equal(decodeMacaroon(Buffer.from(baked.body.macaroon, 'hex')).storageId, '3');
    assert.equal((await rest(alice, 'GET', '/v1/channels', undefined, baked.body.macaroon)).status, 200);
    assert.deepEqual((await rest(alice, 'GET', '/v1/getinfo', undefined, baked.body.macaroon)).body, { code: 2, message: 'permission denied', details: [] });
    assert.equal((await rest(devnet.nodes.bob, 'GET', '/v1/channels', undefined, baked.body.macaroon)).status, 500, "not bob's");
  } finally {
    await devnet.close();
  }
});
