// A payer node's own fetchinvoice for a wallet's offer, answered through Ferry: the wallet registers over Ferry's
// WebSocket an offer of its own key whose blinded path leads to Ferry's CLN node; carol (another devnet CLN node)
// calls her fetchinvoice, which sends the invoice request as an onion message to Ferry's node; the node shows it to
// Ferry (the hold plugin's onion-message hook, carried to Ferry by the plugin's gRPC OnionMessages stream), Ferry takes it (`resolve`), asks the wallet (`invoice.request`) and injects the wallet's invoice
// back along carol's reply path; carol's fetchinvoice returns it and she pays it: Ferry's node holds the payment for
// the wallet's reverse swap and the wallet claims the coins. And: the wallet's invoice.error reaches carol as
// lightningd's invoice_error failure; an offer Ferry does not answer for, and garbage, are left to the node.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { hex } from '@scure/base';
import { REGTEST_CHAIN } from '@ferry/devnet/lightning/clnrest/offers.js';
import { onionHooksOf } from '@ferry/devnet/lightning/clnrest/onion-hooks.js';
import { createInvoiceRequest, decodeInvoice, decodeOffer, encodeOffer } from '@ferry/sdk/lightning/bolt12/index.js';
import type { HeldOnionMessage } from '@ferry/sdk/lightning/onion-message-hook.js';
import { createBlindedPath, encodeRecipientData, toReplyBlindedPath } from '@ferry/sdk/lightning/onion/index.js';
import { carolPaysWallet, reverseSwapAnswers, startBolt12World, walletSocket, type Bolt12World } from './support/bolt12-world.ts';

const INVOICE_SAT = 45_000;

let world: Bolt12World;

// Ferry's responder is the one its app attaches at start: on the hold plugin's gRPC OnionMessages stream, which the
// devnet node serves from its onion-message hooks — the path a real CLN node with the hold plugin takes.
before(async () => {
  world = await startBolt12World('bolt12-onion');
});

after(async () => {
  await world?.close();
});

/** A wallet's offer of its own key, its one blinded path leading to Ferry's node. */
function walletOffer() {
  const walletSecret = secp256k1.utils.randomSecretKey();
  const ferryNode = hex.decode(world.devnet.info.cln!.cln.pubkey);
  const path = createBlindedPath(randomBytes(32), [{ nodeId: ferryNode, data: encodeRecipientData({ pathId: randomBytes(32) }) }]);
  const offer = encodeOffer({ chains: [REGTEST_CHAIN], description: 'wallet tips', issuerId: secp256k1.getPublicKey(walletSecret, true), paths: [path] });
  return { offer, walletSecret };
}

/** What reaches Ferry's node's hooks after Ferry's responder passed it on. */
function seenAfterFerry(): { seen: HeldOnionMessage[]; stop: () => void } {
  const seen: HeldOnionMessage[] = [];
  const stop = onionHooksOf(world.devnet.lightning.network, 'cln').onMessage((message) => {
    seen.push(message);
    return 'continue';
  });
  return { seen, stop };
}

const failure = (log: string[]) => (error: unknown) => {
  throw new Error(`${(error as Error).stack}\nFerry's log:\n${log.join('\n')}`);
};

describe("BOLT12: a payer node's own fetchinvoice answered by a wallet through Ferry's CLN node", { timeout: 600_000 }, () => {
  test("carol's fetchinvoice returns the wallet's invoice, carol pays it, the wallet claims its reverse swap", async () => {
    const { wallet, clnCall, log } = world;
    const { offer, walletSecret } = walletOffer();
    const { minCltv } = await wallet.api.expect('GET', '/v2/lightning/BTC/bolt12/BTC', undefined, 200);
    const { answer, made } = reverseSwapAnswers(world, walletSecret, minCltv);
    const requests: string[] = [];
    const socket = await walletSocket(world, offer, walletSecret, (requestHex) => {
      requests.push(requestHex);
      return answer(requestHex);
    });
    const { seen, stop } = seenAfterFerry();
    try {
      const fetched = await clnCall('carol', 'fetchinvoice', { offer, amount_msat: INVOICE_SAT * 1000 });
      assert.equal(fetched.invoice, made.invoice, "carol got exactly the wallet's invoice");
      assert.equal(requests.length, 1, 'the wallet was asked once');
      assert.equal(seen.length, 0, "Ferry took the request: the node's later hooks never saw it");
      assert.ok(made.swap !== undefined);
      assert.equal(hex.encode(decodeInvoice(fetched.invoice).invoice.paymentHash!), hex.encode(made.swap.preimageHash), "the reverse swap's hash");
      await carolPaysWallet(world, made.swap, fetched.invoice, INVOICE_SAT);
    } catch (error) {
      failure(log)(error);
    } finally {
      stop();
      socket.close();
    }
  });

  test("the wallet's invoice.error fails carol's fetchinvoice with its text", async () => {
    const { offer, walletSecret } = walletOffer();
    const socket = await walletSocket(world, offer, walletSecret, async () => {
      throw new Error('no swaps for this amount');
    });
    try {
      const failed = await world.clnCall('carol', 'fetchinvoice', { offer, amount_msat: 1_000_000 });
      assert.equal(failed.code, 1004, JSON.stringify(failed));
      assert.equal(failed.message, 'Remote node sent failure message');
      assert.equal(failed.data.error, 'no swaps for this amount');
    } finally {
      socket.close();
    }
  });

  test('an offer nobody registered with Ferry is left to the node: carol gets no answer', async () => {
    const { offer } = walletOffer();
    const { seen, stop } = seenAfterFerry();
    try {
      const failed = await world.clnCall('carol', 'fetchinvoice', { offer, amount_msat: 1_000_000 });
      assert.equal(failed.code, 1005, JSON.stringify(failed));
      assert.equal(seen.length, 1, "Ferry answered `continue`: the node's next hook saw the request");
      assert.ok(seen[0].invoiceRequest !== undefined && seen[0].replyBlindedPath !== undefined);
    } finally {
      stop();
    }
  });

  test('garbage in the stream is left to the node, and Ferry goes on', async () => {
    const hooks = onionHooksOf(world.devnet.lightning.network, 'cln');
    const { offer, walletSecret } = walletOffer();
    const socket = await walletSocket(world, offer, walletSecret, async () => 'unused');
    try {
      const request = createInvoiceRequest(decodeOffer(offer), { metadata: randomBytes(8), amountMsat: 1000n }, secp256k1.utils.randomSecretKey());
      const replyPath = toReplyBlindedPath(createBlindedPath(randomBytes(32), [{ nodeId: hex.decode(world.devnet.info.cln!.carol.pubkey), data: new Uint8Array() }]));
      const cases: HeldOnionMessage[] = [
        { id: 1n, unknownFields: [] },
        { id: 2n, invoiceRequest: randomBytes(40), replyBlindedPath: replyPath, unknownFields: [] },
        { id: 3n, invoiceRequest: request.bytes, unknownFields: [] }, // a subscribed offer, but nowhere to reply
        { id: 4n, invoiceRequest: request.bytes, replyBlindedPath: { hops: [] }, unknownFields: [] },
        { id: 5n, invoiceRequest: request.bytes, replyBlindedPath: { ...replyPath, firstNodeId: undefined, firstScid: 'x' }, unknownFields: [] },
        { id: 6n, invoice: randomBytes(20), unknownFields: [{ number: 101n, value: randomBytes(3) }] },
      ];
      for (const message of cases) assert.equal(await hooks.dispatch(message), 'continue', `message ${message.id}`);
      assert.equal(world.ferry.invoiceRequests!.pendingRequests, 0, 'no wallet was asked');
      assert.ok((await world.wallet.api.call('GET', '/v2/lightning/BTC/bolt12/BTC')).status === 200, 'Ferry still answers');
    } finally {
      socket.close();
    }
  });
});
