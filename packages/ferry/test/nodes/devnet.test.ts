// The real-node suite (`npm run test:nodes`) against the devnet through the external path, as CI runs it: `ferry
// devnet` as its own process, a nodes file whose [ferry] table is the ferry.toml that process wrote (its nodes as
// Ferry's configuration), then the very same suite an operator runs against their daemons — `ferry start` with a
// config file naming every node by URL and credential, devnet disabled.
// @lightning-matrix: runs again with Ferry on Core Lightning (scripts/test.mjs).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'smol-toml';
import { useDevnetProcess } from '../helpers/devnet-process.ts';
import { testLightning } from '../helpers/test-lightning.ts';
import { writeDevnetNodesFile } from './devnet-nodes.ts';
import { readNodesFile } from './nodes-file.ts';
import { registerNodeSuite } from './suite.ts';

// Ferry's node kind is the devnet's to write into ferry.toml: the LND `ferry`, or the CLN `cln` it then runs.
const devnet = useDevnetProcess('ferry-node-suite-', { FERRY_LIGHTNING_BACKEND: testLightning() });

registerNodeSuite(async () => {
  await devnet.ready;
  const file = join(devnet.root, 'nodes.toml');
  const ferry = parse(readFileSync(join(devnet.root, 'devnet', 'ferry.toml'), 'utf8'));
  writeDevnetNodesFile(devnet.info, file, ferry);
  return readNodesFile(file);
});
