// The BOLT12-on-Core-Lightning world the BOLT12 scenarios share: a devnet with Ferry's CLN node (`cln`) and carol,
// Ferry on it, a swap wallet; the wallet's WebSocket subscription to its offer (`invoice.request`) answering each
// request with the invoice of a new reverse swap whose path leads through Ferry's node; and the ending where carol
// pays that invoice, Ferry's node holds it, Ferry locks coins and the wallet claims them.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hex } from '@scure/base';
import WebSocket from 'ws';
import { startFerry, type Ferry } from '../../../../src/app.ts';
import { loadConfig } from '../../../../src/config/index.ts';
import { startDevnet, type Devnet } from '@ferry/devnet/index.js';
import { OWNER_MESSAGES, encodeInvoice, invoiceRequestFromBytes, signOwnerMessage } from '@ferry/sdk/lightning/bolt12/index.js';
import { createLogger } from '../../../../src/log/index.ts';
import { invoiceAnswering } from '../../../helpers/bolt12-wallet.ts';
import { ephemeralDevnetPorts, ephemeralPorts } from '../../../helpers/ports.ts';
import { SwapWallet, type ReverseSwap } from '../../../helpers/swap-wallet.ts';
import { clnRest } from '../../../lightning/helpers.ts';
import { ferryClnEnv } from '../../../helpers/test-lightning.ts';
import { DevnetChain } from './chain.ts';

export type ClnName = 'cln' | 'carol';

export interface Bolt12World {
  devnet: Devnet;
  ferry: Ferry;
  wallet: SwapWallet;
  chain: DevnetChain;
  /** Ferry's log lines (warn and above), for failure messages. */
  log: string[];
  clnCall(node: ClnName, method: string, params?: unknown): Promise<any>;
  /** The node's side of its channels, msat. */
  clnToUs(node: ClnName): Promise<bigint>;
  close(): Promise<void>;
}

export async function startBolt12World(name: string): Promise<Bolt12World> {
  const devnetDir = mkdtempSync(join(tmpdir(), `ferry-${name}-devnet-`));
  const ferryDir = mkdtempSync(join(tmpdir(), `ferry-${name}-`));
  const log: string[] = [];
  const devnet = await startDevnet({ dataDir: devnetDir, ...ephemeralDevnetPorts, cln: ['cln', 'carol'] });
  const { bitcoin } = devnet.info;
  const config = loadConfig({
    env: {
      FERRY_DATA_DIR: ferryDir,
      ...ephemeralPorts,
      FERRY_DEVNET_ENABLED: 'false',
      FERRY_BITCOIN_RPC_URL: bitcoin.rpcUrl,
      FERRY_BITCOIN_RPC_USER: bitcoin.rpcUser,
      FERRY_BITCOIN_RPC_PASSWORD: bitcoin.rpcPassword,
      FERRY_BITCOIN_WALLET: bitcoin.wallets.operator,
      ...ferryClnEnv(devnet.info),
    },
  });
  config.bitcoin.pollIntervalMs = 100;
  const ferry = await startFerry(config, createLogger({ level: 'warn', json: true, write: (line) => log.push(line) }));
  const wallet = await SwapWallet.open({ apiUrl: ferry.apiUrl, devnet: devnet.info });
  const clnCall = async (node: ClnName, method: string, params: unknown = {}) => (await clnRest(devnet.info.cln![node], method, params)).body;
  return {
    devnet,
    ferry,
    wallet,
    chain: new DevnetChain(devnet.info),
    log,
    clnCall,
    clnToUs: async (node) => ((await clnCall(node, 'listpeerchannels')).channels as { to_us_msat: number }[]).reduce((sum, c) => sum + BigInt(c.to_us_msat), 0n),
    close: async () => {
      wallet.close();
      await ferry.close();
      await devnet.close();
      for (const dir of [devnetDir, ferryDir]) rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The wallet's connection: subscribed to its offer, answering each request with `answer`'s invoice (or its error). */
export async function walletSocket(world: Bolt12World, offer: string, walletSecret: Uint8Array, answer: (requestHex: string) => Promise<string>): Promise<WebSocket> {
  const socket = new WebSocket(world.ferry.apiUrl.replace(/^http/, 'ws') + '/v2/ws');
  await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
  const subscribed = new Promise<void>((resolve) =>
    socket.on('message', (data) => {
      const message = JSON.parse(String(data));
      if (message.event === 'subscribe') resolve();
      if (message.event !== 'request') return;
      for (const { id, invoiceRequest } of message.args) {
        answer(invoiceRequest).then(
          (invoice) => socket.send(JSON.stringify({ op: 'invoice', id, invoice })),
          (error: Error) => socket.send(JSON.stringify({ op: 'invoice.error', id, error: error.message })),
        );
      }
    }),
  );
  const signature = hex.encode(signOwnerMessage(OWNER_MESSAGES.subscribe, walletSecret));
  socket.send(JSON.stringify({ op: 'subscribe', channel: 'invoice.request', args: [{ offer, signature }] }));
  await subscribed;
  return socket;
}

/** The wallet's answers: for each request a new reverse swap with Ferry, and its invoice paid through Ferry's node. */
export function reverseSwapAnswers(world: Bolt12World, walletSecret: Uint8Array, minCltv: number) {
  const made: { swap?: ReverseSwap; invoice: string } = { invoice: '' };
  const answer = async (requestHex: string): Promise<string> => {
    const request = invoiceRequestFromBytes(hex.decode(requestHex));
    const ferryNode = hex.decode(world.devnet.info.cln!.cln.pubkey);
    made.swap = await world.wallet.createReverseWithInvoice(Number(request.invreq.amountMsat! / 1000n), (preimageHash) => {
      made.invoice = encodeInvoice(invoiceAnswering(request, walletSecret, ferryNode, preimageHash, minCltv + 100));
      return made.invoice;
    });
    return made.invoice;
  };
  return { answer, made };
}

/**
 * Carol pays the wallet's invoice; Ferry's node holds it, Ferry locks coins, the wallet claims them, the payment
 * settles with the wallet's preimage: asserted on carol's payment, both nodes' channels and the wallet's balance.
 */
export async function carolPaysWallet(world: Bolt12World, swap: ReverseSwap, walletInvoice: string, amountSat: number): Promise<void> {
  const { wallet, chain, clnCall, clnToUs } = world;
  const held = await clnCall('cln', 'listholdinvoices', { payment_hash: hex.encode(swap.preimageHash) });
  assert.equal(held.holdinvoices[0].invoice, walletInvoice, "Ferry's node holds payments for the wallet's invoice");
  const [ferryBefore, carolBefore, userBefore] = await Promise.all([clnToUs('cln'), clnToUs('carol'), chain.balance(chain.user)]);
  const paying = clnCall('carol', 'pay', { bolt11: walletInvoice });
  const mempool = await wallet.status.waitFor(swap.id, 'transaction.mempool');
  assert.ok(mempool.transaction?.hex, 'the lockup update carries the transaction');
  const lockup = wallet.reverseLockup(swap, mempool.transaction.hex);
  const claim = await wallet.cooperativeReverseClaim(swap, lockup, await wallet.destination());
  await wallet.status.waitFor(swap.id, 'invoice.settled');

  const paid = await paying;
  assert.equal(paid.status, 'complete');
  assert.equal(paid.payment_preimage, hex.encode(swap.preimage), "carol holds the wallet's preimage");
  const sent = await clnCall('carol', 'listsendpays', { payment_hash: hex.encode(swap.preimageHash) });
  assert.equal(sent.payments[0].bolt12, walletInvoice);
  assert.equal(await clnToUs('cln'), ferryBefore + BigInt(amountSat) * 1000n, "Ferry's node received the amount");
  assert.ok((await clnToUs('carol')) <= carolBefore - BigInt(amountSat) * 1000n, 'carol paid it (and the routing fee)');
  await chain.mine(1);
  assert.equal(await chain.balance(chain.user), userBefore + claim.value, 'the wallet got the coins on chain');
  assert.equal((await clnCall('cln', 'listholdinvoices', { payment_hash: hex.encode(swap.preimageHash) })).holdinvoices[0].state, 'paid');
}
