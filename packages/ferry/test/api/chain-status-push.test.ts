// A chain swap's statuses as a real Ferry pushes them, over the v2 WebSocket and the v1 server-sent events, from
// creation to Ferry's claim: every status once, in order, each carrying the transaction the client acts on (the
// user's lockup while it is the news, then Ferry's, whose hex the client claims from), as for the other swap types.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { StatusSocket } from '../helpers/swap-api.ts';
import { createBtcToLbtc, lockBtc, scriptPathClaimOf, startChainWorld, untilStatus, type ChainWorld } from '../engine/chain-support.ts';
import { openStream } from './swap-api-harness.ts';

let world: ChainWorld;

before(async () => {
  world = await startChainWorld('chain-status-push');
});

after(async () => {
  await world?.close();
});

test('a BTC → L-BTC chain swap pushes swap.created → transaction.mempool/confirmed → transaction.server.mempool/confirmed → claim.pending → claimed', async () => {
  const swap = await createBtcToLbtc(world, 100_000);
  const socket = await StatusSocket.open(world.ferry.apiUrl);
  const stream = await openStream(`${world.ferry.apiUrl}/streamswapstatus?id=${swap.id}`);
  try {
    await socket.subscribe(swap.id);
    await socket.waitFor(swap.id, 'swap.created');
    await stream.until(/swap\.created/);

    // The user's lockup, unconfirmed: it signals RBF, so Ferry waits for a block before locking.
    const lockup = await lockBtc(world, swap);
    await socket.waitFor(swap.id, 'transaction.mempool');
    await world.btc.mine();
    const locked = await untilStatus(world, swap.id, 'transaction.server.mempool');
    const serverLockup = locked.serverLockup!;
    await socket.waitFor(swap.id, 'transaction.server.mempool');
    await world.lbtc.mine();
    await socket.waitFor(swap.id, 'transaction.server.confirmed');

    // The client claims Ferry's lockup through the claim leaf; Ferry reads the preimage off it and claims in turn.
    const claim = await scriptPathClaimOf(world, swap, serverLockup.txid);
    await world.elements.sendRawTransaction(claim.hex);
    await socket.waitFor(swap.id, 'transaction.claimed');
    await stream.until(/transaction\.claimed/, 10_000);

    const userLockup = { id: lockup.txid, hex: await world.bitcoin.getRawTransactionHex(lockup.txid) };
    const server = { id: serverLockup.txid, hex: await world.elements.getRawTransactionHex(serverLockup.txid) };
    const expected = [
      { status: 'swap.created' },
      { status: 'transaction.mempool', zeroConfRejected: true, transaction: userLockup },
      { status: 'transaction.confirmed', transaction: userLockup },
      { status: 'transaction.server.mempool', transaction: { ...server, eta: 1 } },
      { status: 'transaction.server.confirmed', transaction: server },
      { status: 'transaction.claim.pending' },
      { status: 'transaction.claimed' },
    ];
    assert.deepEqual(socket.statuses(swap.id), expected.map((update) => update.status));
    assert.deepEqual(socket.history(swap.id), expected.map((update) => ({ id: swap.id, ...update })), 'over the WebSocket');
    assert.deepEqual(stream.events(), expected, 'over server-sent events');
  } finally {
    socket.close();
    stream.close();
  }
});
