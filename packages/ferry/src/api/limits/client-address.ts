// Who the client is, for per-address limits: the socket's peer address, or — only when that peer is a trusted
// proxy — the nearest address in X-Forwarded-For that is not a trusted proxy itself. Without configured proxies
// the header is ignored: anyone can write it.
import type { IncomingMessage } from 'node:http';
import { BlockList, isIP } from 'node:net';

export class ClientAddresses {
  private readonly trusted = new BlockList();
  private readonly any: boolean;

  /** @param proxies addresses or CIDR ranges ("10.0.0.0/8", "::1"); throws on anything else. */
  constructor(proxies: readonly string[]) {
    for (const entry of proxies) {
      const [address, bits] = entry.trim().split('/');
      const family = isIP(address);
      if (family === 0) throw new Error(`not an IP address or CIDR range: ${entry}`);
      const type = family === 6 ? 'ipv6' : 'ipv4';
      if (bits === undefined) this.trusted.addAddress(address, type);
      else {
        const prefix = Number(bits);
        if (!/^\d+$/.test(bits) || prefix > (family === 6 ? 128 : 32)) throw new Error(`not a CIDR range: ${entry}`);
        this.trusted.addSubnet(address, prefix, type);
      }
    }
    this.any = proxies.length > 0;
  }

  of(request: IncomingMessage): string {
    const peer = normalize(request.socket.remoteAddress ?? 'unknown');
    if (!this.any || !this.isTrusted(peer)) return peer;
    const header = request.headers['x-forwarded-for'];
    const hops = (Array.isArray(header) ? header.join(',') : (header ?? '')).split(',').map((hop) => normalize(hop.trim()));
    // walk from the nearest hop back: the first untrusted one is the client as far as our proxies can tell
    for (let i = hops.length - 1; i >= 0; i--) {
      if (isIP(hops[i]) === 0) return peer; // a malformed chain: fall back to the proxy itself
      if (!this.isTrusted(hops[i])) return hops[i];
    }
    return peer;
  }

  private isTrusted(address: string): boolean {
    const family = isIP(address);
    return family !== 0 && this.trusted.check(address, family === 6 ? 'ipv6' : 'ipv4');
  }
}

/** IPv4 clients of a dual-stack socket appear as ::ffff:a.b.c.d; one client, one key. */
function normalize(address: string): string {
  return address.startsWith('::ffff:') && isIP(address.slice(7)) === 4 ? address.slice(7) : address;
}
