// Which Lightning backend the swap tests run Ferry on: LND by default, Core Lightning with
// FERRY_TEST_LIGHTNING=cln (the devnet then runs its `cln` node, and that node is Ferry's). scripts/test.mjs
// runs the core swap files a second time that way.
import { test } from 'node:test';
import type { DevnetInfo } from '@ferry/devnet/index.js';
import type { LightningBackend } from '../../src/lightning/backend.ts';
import { ClnBackend } from '../../src/lightning/cln/client.ts';
import { readHoldTls } from '../../src/lightning/cln/hold/credentials.ts';
import { LndRestClient } from '../../src/lightning/lnd/client.ts';

export type TestLightning = 'lnd' | 'cln';

export function testLightning(): TestLightning {
  const chosen = process.env.FERRY_TEST_LIGHTNING ?? 'lnd';
  if (chosen !== 'lnd' && chosen !== 'cln') throw new Error(`FERRY_TEST_LIGHTNING must be lnd or cln, got ${chosen}`);
  return chosen;
}

export const onCln = (): boolean => testLightning() === 'cln';

/**
 * Registers a test of a Lightning-matrix file on the LND pass only: a case Ferry's Lightning node takes no part in
 * (the wallet's checks, a lockup Ferry must not pay for, a chain timeout), which the Core Lightning pass would only
 * repeat at the cost of its CI time. The file's cases that use the node run on both passes.
 */
export function testOffTheNode(name: string, fn: () => Promise<void>): void {
  if (!onCln()) test(name, fn);
}

/** A client of Ferry's own node on the devnet: `ferry` over LND REST, or `cln` over clnrest and its hold plugin's gRPC. */
export function ferryNodeClient(info: DevnetInfo): LightningBackend {
  if (onCln()) {
    const node = info.cln?.cln;
    if (node === undefined) throw new Error('the devnet runs no CLN node: start it with { cln: true }');
    // polled every 50 ms, so the tests see its invoices' changes soon
    return new ClnBackend({ url: node.restUrl, rune: node.rune, pollMs: 50, hold: node.hold && { url: node.hold.grpcUrl, tls: readHoldTls(node.hold) } });
  }
  return new LndRestClient({ url: info.lightning.ferry.restUrl, macaroon: info.lightning.ferry.macaroon });
}

/** The public key of Ferry's node on the devnet. */
export const ferryNodePubkey = (info: DevnetInfo): string => (onCln() ? info.cln!.cln.pubkey : info.lightning.ferry.pubkey);

/** What an in-process Ferry with its embedded devnet needs to run on the chosen node (the devnet starts `cln` for it). */
export const ferryConfigLightningEnv = (): Record<string, string> => ({ FERRY_LIGHTNING_BACKEND: testLightning() });

/** What a `ferry devnet` process needs to run Ferry's node of the chosen kind. */
export const devnetLightningEnv = (): Record<string, string> => (onCln() ? { FERRY_DEVNET_CLN: 'true' } : {});

/** What a `ferry start` process needs to drive the devnet's node of the chosen kind (the devnet itself disabled). */
export function ferryLightningEnv(info: DevnetInfo): Record<string, string> {
  if (onCln()) return ferryClnEnv(info);
  return { FERRY_LND_REST_URL: info.lightning.ferry.restUrl, FERRY_LND_MACAROON: info.lightning.ferry.macaroon };
}

/** Ferry on the devnet's CLN node `cln`: clnrest with its rune, hold invoices and onion messages over the plugin's gRPC. */
export function ferryClnEnv(info: DevnetInfo): Record<string, string> {
  const node = info.cln!.cln;
  return {
    FERRY_LIGHTNING_BACKEND: 'cln',
    FERRY_LND_REST_URL: node.restUrl,
    FERRY_CLN_RUNE: node.rune,
    ...(node.hold && { FERRY_CLN_HOLD_GRPC_URL: node.hold.grpcUrl, FERRY_CLN_HOLD_CERT_DIR: node.hold.certDir }),
  };
}
