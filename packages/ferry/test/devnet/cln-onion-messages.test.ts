// Onion messages between devnet CLN nodes: carol's fetchinvoice for an offer reached through cln travels as a real
// onion message that cln peels and shows its hooks first (the hold plugin's OnionMessages); `continue` leaves it to
// cln — an invoice if cln issued the offer, otherwise carol's fetchinvoice fails as lightningd's does when nobody
// answers —, `resolve` leaves the reply to the hook's owner, which injects it into cln (injectonionmessage) to go
// back along carol's reply path: an invoice, checked by carol against her request, or an invoice_error.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { hex } from '@scure/base';
import type { ClnNodeInfo, LightningDevnet } from '@ferry/devnet/lightning/index.js';
import { onionHooksOf } from '@ferry/devnet/lightning/clnrest/onion-hooks.js';
import { REGTEST_CHAIN } from '@ferry/devnet/lightning/clnrest/offers.js';
import { decodeInvoice, encodeInvoice, encodeInvoiceError, encodeOffer, invoiceRequestFromBytes } from '@ferry/sdk/lightning/bolt12/index.js';
import type { HeldOnionMessage, OnionHookAction } from '@ferry/sdk/lightning/onion-message-hook.js';
import { buildOnionMessage, createBlindedPath, encodeRecipientData, fromReplyBlindedPath, type OnionMessagePayload } from '@ferry/sdk/lightning/onion/index.js';
import { invoiceAnswering } from '../helpers/bolt12-wallet.ts';
import { clnRest, startClnPair } from '../lightning/helpers.ts';

describe('onion messages between devnet CLN nodes', () => {
  let devnet: LightningDevnet;
  let cln: ClnNodeInfo;
  let carol: ClnNodeInfo;
  let stopHook = () => {};

  before(async () => {
    devnet = await startClnPair();
    ({ cln, carol } = devnet.cln);
  });
  after(async () => {
    await devnet?.close();
  });

  /** cln's hooks answer `action` and keep what they saw. */
  function hookOnCln(action: OnionHookAction): HeldOnionMessage[] {
    stopHook();
    const seen: HeldOnionMessage[] = [];
    stopHook = onionHooksOf(devnet.network, 'cln').onMessage((message) => {
      seen.push(message);
      return action;
    });
    return seen;
  }

  const waitFor = async (seen: HeldOnionMessage[]) => {
    while (seen.length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    return seen[0];
  };

  /** A wallet's offer (its own key) whose one path, with this path_id for cln, leads through cln. */
  function walletOffer(pathId: Uint8Array) {
    const walletSecret = secp256k1.utils.randomSecretKey();
    const path = createBlindedPath(randomBytes(32), [{ nodeId: hex.decode(cln.pubkey), data: encodeRecipientData({ pathId }) }]);
    const offer = encodeOffer({ chains: [REGTEST_CHAIN], description: 'wallet', issuerId: secp256k1.getPublicKey(walletSecret, true), paths: [path] });
    return { offer, walletSecret };
  }

  /** What the hook's owner does after `resolve`: the reply along [cln] + the reply path, injected into cln. */
  const inject = (held: HeldOnionMessage, payload: Omit<OnionMessagePayload, 'encryptedRecipientData'>) => {
    const reply = buildOnionMessage({ via: [hex.decode(cln.pubkey)], destination: fromReplyBlindedPath(held.replyBlindedPath!), payload });
    return clnRest(cln, 'injectonionmessage', { message: hex.encode(reply.packet), path_key: hex.encode(reply.pathKey) });
  };

  test("continue: cln answers carol's request for its own offer, after its hook saw it", async () => {
    const seen = hookOnCln('continue');
    const { body: offered } = await clnRest(cln, 'offer', { amount: 21_000, description: 'cln sells' });
    const fetched = await clnRest(carol, 'fetchinvoice', { offer: offered.bolt12 });
    assert.equal(fetched.status, 201, JSON.stringify(fetched.body));
    const invoice = decodeInvoice(fetched.body.invoice);
    assert.equal(hex.encode(invoice.invoice.nodeId!), cln.pubkey);
    assert.equal(seen.length, 1);
    const request = invoiceRequestFromBytes(seen[0].invoiceRequest!);
    assert.deepEqual(request.invreq.payerId, invoice.invreq.payerId, 'the hook saw the very request answered');
    assert.equal(hex.encode(seen[0].replyBlindedPath!.firstNodeId!), carol.pubkey, 'the reply path leads to carol');
  });

  test('continue for an offer cln did not issue: nobody answers, carol gets lightningd\'s timeout error', async () => {
    const seen = hookOnCln('continue');
    const { offer } = walletOffer(randomBytes(32));
    const fetched = await clnRest(carol, 'fetchinvoice', { offer, amount_msat: 5000 });
    assert.equal(fetched.status, 500);
    assert.equal(fetched.body.code, 1005);
    assert.equal(fetched.body.message, 'Timeout waiting for response');
    assert.equal(seen.length, 1, 'cln got it');
  });

  test("resolve: the invoice injected into cln reaches carol's fetchinvoice, which returns it", async () => {
    const seen = hookOnCln('resolve');
    const pathId = randomBytes(32);
    const { offer, walletSecret } = walletOffer(pathId);
    const fetching = clnRest(carol, 'fetchinvoice', { offer, amount_msat: 70_000 });
    const held = await waitFor(seen);
    assert.deepEqual(held.pathSecret, new Uint8Array(pathId), "it came over the offer's path: its path_id");
    const invoice = invoiceAnswering(invoiceRequestFromBytes(held.invoiceRequest!), walletSecret, hex.decode(cln.pubkey), randomBytes(32));
    const injected = await inject(held, { invoice: invoice.bytes });
    assert.equal(injected.status, 201, JSON.stringify(injected.body));
    const fetched = await fetching;
    assert.equal(fetched.status, 201, JSON.stringify(fetched.body));
    assert.equal(fetched.body.invoice, encodeInvoice(invoice));
  });

  test('resolve with an invoice_error, an invoice for another request, or nothing in time', async () => {
    const seen = hookOnCln('resolve');
    const { offer, walletSecret } = walletOffer(randomBytes(32));
    const refused = clnRest(carol, 'fetchinvoice', { offer, amount_msat: 70_000 });
    await inject(await waitFor(seen), { invoiceError: encodeInvoiceError({ error: 'no swaps today' }) });
    const failed = await refused;
    assert.equal(failed.body.code, 1004);
    assert.equal(failed.body.message, 'Remote node sent failure message');
    assert.equal(failed.body.data.error, 'no swaps today');

    seen.length = 0;
    const first = clnRest(carol, 'fetchinvoice', { offer, amount_msat: 70_000, timeout: 2 });
    const firstHeld = await waitFor(seen);
    seen.length = 0;
    const second = clnRest(carol, 'fetchinvoice', { offer, amount_msat: 80_000, timeout: 2 });
    const secondHeld = await waitFor(seen);
    // the answer to the second request sent along the first's reply path
    const crossed = invoiceAnswering(invoiceRequestFromBytes(secondHeld.invoiceRequest!), walletSecret, hex.decode(cln.pubkey), randomBytes(32));
    await inject(firstHeld, { invoice: crossed.bytes });
    const wrong = await first;
    assert.equal(wrong.body.code, 1004);
    assert.match(wrong.body.message, /^Incorrect reply/);
    const started = Date.now();
    const late = await second;
    assert.equal(late.body.code, 1005, 'no reply within its timeout');
    assert.ok(Date.now() - started < 3000);
  });

  test('injectonionmessage refuses bad hex and onions it cannot parse, and the node goes on', async () => {
    const key = hex.encode(secp256k1.getPublicKey(secp256k1.utils.randomSecretKey(), true));
    const badHex = await clnRest(cln, 'injectonionmessage', { message: 'zz', path_key: key });
    assert.equal(badHex.body.code, -32602);
    const missing = await clnRest(cln, 'injectonionmessage', { message: '00' });
    assert.equal(missing.body.code, -32602);
    const garbage = await clnRest(cln, 'injectonionmessage', { message: hex.encode(new Uint8Array(1366)), path_key: key });
    assert.equal(garbage.status, 500);
    assert.equal(garbage.body.code, -1);
    assert.match(garbage.body.message, /^onion_message_parse: can't parse onionpacket/);
    assert.equal((await clnRest(cln, 'getinfo')).body.id, cln.pubkey);
  });
});
