// The devnet's Lightning network alone in a process of its own, for what needs its process apart: a test that kills
// it (SIGKILL, no clean close) and reads its state back, a bench that meters its CPU. Usage:
// `node --import tsx lightning-devnet-child.ts DATA_DIR [LIGHTNING_MODULE]`; LIGHTNING_MODULE is the devnet's
// lightning/index.ts to run (default this tree's; the hold-invoice bench passes an older release's). It prints its
// nodes (name → restUrl, macaroon, pubkey) as one JSON line once they listen, and closes cleanly when stdin ends.
import { pathToFileURL } from 'node:url';

type LightningModule = typeof import('@ferry/devnet/lightning/index.js');

const [dataDir, modulePath] = process.argv.slice(2);
if (dataDir === undefined) throw new Error('usage: lightning-devnet-child.ts DATA_DIR [LIGHTNING_MODULE]');
const lightning = (await import(modulePath === undefined ? '@ferry/devnet/lightning/index.js' : pathToFileURL(modulePath).href)) as LightningModule;
const devnet = await lightning.startLightningDevnet({ dataDir });
process.stdout.write(JSON.stringify(devnet.nodes) + '\n');
process.stdin.resume();
process.stdin.on('end', () => {
  void devnet.close().then(() => process.exit(0));
});
