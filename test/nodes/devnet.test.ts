// The real-node suite (`npm run test:nodes`) against the devnet through the external path, as CI runs it: `ferry
// devnet` as its own process, a nodes file written from its devnet.json, then the very same suite an operator runs
// against their daemons — `ferry start` with a config file naming every node by URL and credential, devnet disabled.
// @lightning-matrix: runs again with Ferry on Core Lightning (scripts/test.mjs).
import { join } from 'node:path';
import { useDevnetProcess } from '../helpers/devnet-process.ts';
import { writeDevnetNodesFile } from './devnet-nodes.ts';
import { readNodesFile } from './nodes-file.ts';
import { registerNodeSuite } from './suite.ts';

const devnet = useDevnetProcess('ferry-node-suite-');

registerNodeSuite(async () => {
  await devnet.ready;
  const file = join(devnet.root, 'nodes.toml');
  writeDevnetNodesFile(devnet.info, file);
  return readNodesFile(file);
});
