// Lightning node endpoints, served from the operator's node on the devnet through the LND REST adapter.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFerry, type Ferry } from '../../src/app.ts';
import { loadConfig } from '../../src/config/index.ts';
import { silentLogger } from '../../src/log/index.ts';
import { ephemeralPorts } from '../helpers/ports.ts';

let ferry: Ferry;

before(async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'ferry-api-nodes-'));
  const config = loadConfig({ env: { FERRY_DATA_DIR: dataDir, ...ephemeralPorts } });
  ferry = await startFerry(config, silentLogger);
});
after(() => ferry.close());

const get = async (path: string) => (await fetch(ferry.apiUrl + path)).json();

test('v2 /nodes and v1 /getnodes name the operator node', async () => {
  const ferryNode = ferry.devnet!.info.lightning.ferry;
  const nodes = await get('/v2/nodes');
  assert.equal(nodes.BTC.LND.publicKey, ferryNode.pubkey);
  assert.ok(Array.isArray(nodes.BTC.LND.uris));
  assert.deepEqual(await get('/getnodes'), { nodes: { BTC: { nodeKey: ferryNode.pubkey, uris: nodes.BTC.LND.uris } } });
});

test('v2 /nodes/stats and v1 /nodestats count the channels funded on the devnet chain', async () => {
  const stats = await get('/v2/nodes/stats');
  // the devnet opens two channels from the operator node: 10M sat to alice, 20M sat to bob
  assert.deepEqual(
    { capacity: stats.BTC.total.capacity, channels: stats.BTC.total.channels, peers: stats.BTC.total.peers },
    { capacity: 30_000_000, channels: 2, peers: 2 },
  );
  assert.deepEqual(await get('/nodestats'), { nodes: { BTC: stats.BTC.total } });
  // oldestChannel is the UNIX time of the block that confirmed the first channel
  const oldest = stats.BTC.total.oldestChannel;
  assert.ok(Math.abs(oldest - Date.now() / 1000) < 3600, `a recent timestamp, got ${oldest}`);
});
