// A nodes file for a devnet run as its own process (`ferry devnet`), written from its devnet.json as an operator
// would write one for their own daemons: Ferry's nodes are the devnet's bitcoin and Elements nodes with their
// `operator` wallets, Ferry's Lightning node (the LND `ferry`, or the CLN `cln` with its hold plugin's gRPC when the
// tests run on Core Lightning, FERRY_TEST_LIGHTNING=cln) and anvil with its swap contracts; the user is the
// `user` wallets and anvil's user account; alice is the counterparty.
import { writeFileSync } from 'node:fs';
import { stringify } from 'smol-toml';
import type { DevnetInfo } from '../../src/devnet/index.ts';
import { onCln } from '../helpers/test-lightning.ts';

function ferryLightning(info: DevnetInfo): Record<string, unknown> {
  if (!onCln()) return { backend: 'lnd', restUrl: info.lightning.ferry.restUrl, macaroon: info.lightning.ferry.macaroon };
  const node = info.cln?.cln;
  if (node === undefined) throw new Error('the devnet runs no CLN node: start it with FERRY_DEVNET_CLN=true');
  return {
    backend: 'cln',
    restUrl: node.restUrl,
    rune: node.rune,
    ...(node.hold && { cln: { hold: { grpcUrl: node.hold.grpcUrl, certDir: node.hold.certDir } } }),
  };
}

export function devnetNodesToml(info: DevnetInfo): string {
  const chain = (endpoint: DevnetInfo['bitcoin']) => ({
    rpcUrl: endpoint.rpcUrl,
    rpcUser: endpoint.rpcUser,
    rpcPassword: endpoint.rpcPassword,
    wallet: endpoint.wallets.operator,
  });
  return stringify({
    ferry: {
      bitcoin: chain(info.bitcoin),
      liquid: chain(info.elements),
      lightning: ferryLightning(info),
      evm: { rpcUrl: info.evm.rpcUrl, chainId: info.evm.chainId, etherSwap: info.evm.contracts.etherSwap, erc20Swap: info.evm.contracts.erc20Swap },
    },
    user: {
      bitcoin: { wallet: info.bitcoin.wallets.user },
      liquid: { wallet: info.elements.wallets.user },
      evm: { privateKey: info.evm.accounts.user.privateKey },
    },
    counterparty: { kind: 'lnd', restUrl: info.lightning.alice.restUrl, macaroon: info.lightning.alice.macaroon },
  });
}

export function writeDevnetNodesFile(info: DevnetInfo, path: string): void {
  writeFileSync(path, devnetNodesToml(info), { mode: 0o600 });
}
