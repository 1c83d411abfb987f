// v1 POST /routinghints against Ferry on its devnet: a private channel bob opened to Ferry's node is the one hint for
// bob, with the channel id and bob's side of its policy as LND reports them; a node with public channels only, or a
// symbol without Lightning, has none; bad input is a 400 naming the field.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { failedRequests, startV1World, type V1World } from './v1-support.ts';

let world: V1World;
before(async () => {
  world = await startV1World();
});
after(() => world.close());

test('POST /routinghints: one hint per private channel with the routing node, none for public ones', async () => {
  const { lightning } = world.ferry.devnet!;
  const bob = world.ferry.devnet!.info.lightning.bob.pubkey;
  const alice = world.ferry.devnet!.info.lightning.alice.pubkey;
  const before = await world.call('POST', '/routinghints', { symbol: 'BTC', routingNode: bob });
  assert.deepEqual(before, { status: 200, json: { routingHints: [] } }, "bob's channel with Ferry is public");

  const channel = await lightning.network.openChannel({ from: 'bob', to: 'ferry', capacitySat: 500_000, pushSat: 0, private: true });
  const answer = await world.call('POST', '/routinghints', { symbol: 'BTC', routingNode: bob.toUpperCase() });
  assert.equal(answer.status, 200);
  assert.deepEqual(answer.json, {
    routingHints: [{ hopHintsList: [{ nodeId: bob, chanId: channel.chanId, feeBaseMsat: 1000, feeProportionalMillionths: 1, cltvExpiryDelta: 40 }] }],
  });
  assert.deepEqual((await world.call('POST', '/routinghints', { symbol: 'BTC', routingNode: alice })).json, { routingHints: [] });
  assert.deepEqual((await world.call('POST', '/routinghints', { symbol: 'DOGE', routingNode: bob })).json, { routingHints: [] });
});

test('POST /routinghints: missing or malformed fields are 400s naming them', async () => {
  const bob = world.ferry.devnet!.info.lightning.bob.pubkey;
  const cases: [unknown, string][] = [
    [{ routingNode: bob }, 'undefined parameter: symbol'],
    [{ symbol: 'BTC' }, 'undefined parameter: routingNode'],
    [{ symbol: 'BTC', routingNode: 'ab'.repeat(33) }, 'invalid parameter: routingNode'],
    [{ symbol: 'BTC', routingNode: 7 }, 'invalid parameter: routingNode'],
    [{ symbol: ['BTC'], routingNode: bob }, 'invalid parameter: symbol'],
    ['not json', ''],
  ];
  for (const [body, error] of cases) {
    const answer = await world.call('POST', '/routinghints', body);
    assert.equal(answer.status, 400, JSON.stringify(body));
    if (error !== '') assert.equal(answer.json.error, error);
    else assert.equal(typeof answer.json.error, 'string');
  }
  assert.deepEqual(failedRequests(world.log), []);
});
