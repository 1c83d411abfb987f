// The entry of `npm run test:nodes --nodes FILE` (scripts/test-nodes.mjs runs it with node's test runner): the swap
// scenarios against the daemons the nodes file names (FERRY_NODES_FILE, or its text in FERRY_NODES). Not a
// *.test.ts file, so `npm test` never picks it up; its devnet twin, devnet.test.ts, is.
import { nodesFromEnvironment } from './nodes-file.ts';
import { registerNodeSuite } from './suite.ts';

const nodes = nodesFromEnvironment();
if (nodes === undefined) throw new Error('no nodes configured: run it through `npm run test:nodes`, which says what it needs');

registerNodeSuite(async () => nodes);
