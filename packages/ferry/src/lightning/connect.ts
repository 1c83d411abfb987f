// Which Lightning node Ferry drives, from the configuration: LND over its REST API or Core Lightning over
// clnrest (`lightning.backend`), configured by URL and credential (zero-config's devnet node arrives as the same
// keys: src/config/devnet.ts). Core Lightning is reached over clnrest, or over lightningd's JSON-RPC unix socket
// when `lightning.cln.rpcSocket` names it (no rune then). Its hold invoices go over the hold plugin's gRPC when
// `lightning.cln.hold` gives its address and mTLS files; without it the backend cannot hold invoices, and start
// says so.
import { ConfigError, type FerryConfig } from '../config/index.ts';
import type { Logger } from '../log/index.ts';
import type { LightningBackend } from './backend.ts';
import { ClnBackend } from './cln/client.ts';
import type { HoldGrpcOptions } from './cln/hold/client.ts';
import { readHoldTls, type HoldTlsPaths } from './cln/hold/credentials.ts';
import { ClnSocketTransport } from './cln/socket-transport.ts';
import { LndRestClient } from './lnd/client.ts';
import { useLibsecp256k1Recovery } from '../keys/libsecp256k1.ts';

function holdGrpc(grpcUrl: string, paths: HoldTlsPaths): HoldGrpcOptions {
  try {
    return { url: grpcUrl, tls: readHoldTls(paths) };
  } catch (err) {
    throw new ConfigError(`lightning.cln.hold: ${(err as Error).message}`);
  }
}

function clnBackend(
  url: string,
  rune: string,
  hold: HoldGrpcOptions | undefined,
  logger: Logger | undefined,
  extra: { tlsCertPath?: string; rpcSocket?: string } = {},
): ClnBackend {
  if (hold === undefined) {
    logger?.warn(
      "Core Lightning without the hold plugin's gRPC cannot hold invoices: reverse swaps (and BOLT12 reverse swaps) are refused; submarine swaps and payments work. Set lightning.cln.hold.grpcUrl and its certificates to serve reverse swaps",
    );
  }
  const { rpcSocket, ...rest } = extra;
  return new ClnBackend({
    url,
    rune,
    ...rest,
    transport: rpcSocket === undefined ? undefined : new ClnSocketTransport({ path: rpcSocket }),
    hold,
    onHoldStreamError: (error) => logger?.warn("the hold plugin's onion-message stream dropped; reconnecting", { error: error.message }),
  });
}

export function lightningBackend(config: FerryConfig, logger?: Logger): LightningBackend | undefined {
  useLibsecp256k1Recovery();
  const { backend, restUrl, rune, macaroon, macaroonPath, tlsCertPath } = config.lightning;
  const { rpcSocket } = config.lightning.cln;
  if (backend === 'cln' && rpcSocket !== '') {
    const { grpcUrl, ...paths } = config.lightning.cln.hold;
    return clnBackend('', '', grpcUrl === '' ? undefined : holdGrpc(grpcUrl, paths), logger, { rpcSocket });
  }
  if (restUrl === '') return undefined;
  if (backend === 'cln') {
    if (rune === '') throw new ConfigError('lightning.backend "cln" needs lightning.rune (or lightning.cln.rpcSocket)');
    const { grpcUrl, ...paths } = config.lightning.cln.hold;
    const hold = grpcUrl === '' ? undefined : holdGrpc(grpcUrl, paths);
    return clnBackend(restUrl, rune, hold, logger, { tlsCertPath: tlsCertPath || undefined });
  }
  return new LndRestClient({
    url: restUrl,
    macaroon: macaroon || undefined,
    macaroonPath: macaroonPath || undefined,
    tlsCertPath: tlsCertPath || undefined,
  });
}
