// Per-address request rates of the HTTP API: creation calls draw from their own, smaller bucket (each creates
// keys, outputs and invoices), every other request from the read bucket. Checked before the body is read, so a
// refused request costs almost nothing.
import type { IncomingMessage } from 'node:http';
import { ClientAddresses } from './client-address.ts';
import type { ApiLimits } from './options.ts';
import { TokenBuckets } from './token-bucket.ts';

/** POST /v2/swap/{type} (submarine, reverse, chain, and any type added later) and v1's POST /createswap. */
export function isCreation(method: string, path: string): boolean {
  return method === 'POST' && (/^\/v2\/swap\/[^/]+\/?$/.test(path) || path === '/createswap' || path === '/createswap/');
}

export class HttpLimiter {
  readonly addresses: ClientAddresses;
  private readonly reads?: TokenBuckets;
  private readonly creations?: TokenBuckets;

  constructor(limits: Pick<ApiLimits, 'readBurst' | 'readPerSecond' | 'createBurst' | 'createPerSecond' | 'trustedProxies'>) {
    this.addresses = new ClientAddresses(limits.trustedProxies);
    if (limits.readBurst > 0) this.reads = new TokenBuckets({ burst: limits.readBurst, perSecond: limits.readPerSecond });
    if (limits.createBurst > 0) this.creations = new TokenBuckets({ burst: limits.createBurst, perSecond: limits.createPerSecond });
  }

  /** 0 when the request may go on, else the seconds the client should wait (Retry-After). */
  admit(request: IncomingMessage, path: string): number {
    const buckets = isCreation(request.method ?? 'GET', path) ? this.creations : this.reads;
    return buckets ? buckets.take(this.addresses.of(request)) : 0;
  }

  close(): void {
    this.reads?.close();
    this.creations?.close();
  }
}
