// A nodes file for a devnet run as its own process (`ferry devnet`), written from its devnet.json as an operator
// would write one for their own daemons: Ferry's nodes are the devnet's bitcoin and Elements nodes with their
// `operator` wallets, Ferry's Lightning node (the LND `ferry`, or the CLN `cln` with its hold plugin's gRPC when the
// tests run on Core Lightning, FERRY_TEST_LIGHTNING=cln) and anvil with its swap contracts; the user is the
// `user` wallets and anvil's user account; alice is the counterparty.
import { writeFileSync } from 'node:fs';
import { stringify } from 'smol-toml';
import type { DevnetInfo } from '@ferry/devnet/index.js';
import { ferryConfigOf } from '@ferry/devnet/ferry-config.js';
import { testLightning } from '../helpers/test-lightning.ts';

/**
 * `ferry`: Ferry's configuration of the devnet's nodes — by default what `ferry devnet` writes into its ferry.toml
 * (ferryConfigOf), or that file's own table when the caller read it.
 */
export function devnetNodesToml(info: DevnetInfo, ferry: Record<string, unknown> = { ...ferryConfigOf(info, testLightning()) }): string {
  return stringify({
    ferry,
    user: {
      bitcoin: { wallet: info.bitcoin.wallets.user },
      liquid: { wallet: info.elements.wallets.user },
      evm: { privateKey: info.evm.accounts.user.privateKey },
    },
    counterparty: { kind: 'lnd', restUrl: info.lightning.alice.restUrl, macaroon: info.lightning.alice.macaroon },
  });
}

export function writeDevnetNodesFile(info: DevnetInfo, path: string, ferry?: Record<string, unknown>): void {
  writeFileSync(path, devnetNodesToml(info, ferry), { mode: 0o600 });
}
