// Which Lightning node Ferry drives, from the configuration: LND over its REST API or Core Lightning over
// clnrest (`lightning.backend`), configured by URL and credential, or the devnet's node of that kind
// (`ferry` for LND, `cln` for Core Lightning) when none is configured.
import { ConfigError, usesDevnetLightning, type FerryConfig } from '../config/index.ts';
import type { Devnet } from '../devnet/index.ts';
import type { LightningBackend } from './backend.ts';
import { ClnBackend } from './cln/client.ts';
import { LndRestClient } from './lnd/client.ts';

export function lightningBackend(config: FerryConfig, devnet: Devnet | undefined): LightningBackend | undefined {
  const { backend, restUrl, rune, macaroon, macaroonPath, tlsCertPath } = config.lightning;
  if (usesDevnetLightning(config)) {
    if (backend === 'cln') {
      const node = devnet?.info.cln?.cln;
      if (node === undefined) throw new ConfigError('the devnet runs no CLN node');
      return new ClnBackend({ url: node.restUrl, rune: node.rune });
    }
    const node = devnet!.info.lightning.ferry;
    return new LndRestClient({ url: node.restUrl, macaroon: node.macaroon });
  }
  if (restUrl === '') return undefined;
  if (backend === 'cln') {
    if (rune === '') throw new ConfigError('lightning.backend "cln" needs lightning.rune');
    return new ClnBackend({ url: restUrl, rune, tlsCertPath: tlsCertPath || undefined });
  }
  return new LndRestClient({
    url: restUrl,
    macaroon: macaroon || undefined,
    macaroonPath: macaroonPath || undefined,
    tlsCertPath: tlsCertPath || undefined,
  });
}
