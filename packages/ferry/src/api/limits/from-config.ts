// The [limits] section of the configuration as the API's limits; a bad trusted proxy stops start-up.
import { ConfigError, type FerryConfig } from '../../config/index.ts';
import { ClientAddresses } from './client-address.ts';
import type { ApiLimits } from './options.ts';

export function limitsFromConfig(config: FerryConfig): ApiLimits {
  const { trustedProxies, ...rest } = config.limits;
  const proxies = trustedProxies.split(',').map((entry) => entry.trim()).filter(Boolean);
  try {
    new ClientAddresses(proxies);
  } catch (error) {
    throw new ConfigError(`config key limits.trustedProxies: ${(error as Error).message}`);
  }
  if (rest.headersTimeoutMs < 1 || rest.requestTimeoutMs < 1) {
    throw new ConfigError('config keys limits.headersTimeoutMs and limits.requestTimeoutMs must be at least 1');
  }
  return { ...rest, trustedProxies: proxies };
}
