// SSRF protection for webhook calls: a webhook URL is the client's, so without a check anyone could make Ferry
// call its own admin ports, the cloud metadata service or the operator's LAN. Every address a host name resolves
// to must be public; the check runs again at each call, in the socket's own lookup, so a name that resolves to a
// public address at registration and a private one later (DNS rebinding) is refused too.
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';

const blocked = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], // "this network"
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, cloud metadata
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24], // documentation
  ['192.168.0.0', 16],
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const) {
  blocked.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['64:ff9b::', 96], // NAT64 embeds IPv4 addresses
  ['100::', 64],
  ['2001:db8::', 32],
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['ff00::', 8], // multicast
] as const) {
  blocked.addSubnet(network, prefix, 'ipv6');
}

/** Whether an IP address is one a webhook may call: not private, loopback, link-local or reserved. */
export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return false;
  if (family === 6) {
    // ::ffff:a.b.c.d and ::a.b.c.d reach the IPv4 address
    const mapped = /^::(ffff:)?(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
    if (mapped) return isPublicAddress(mapped[2]);
    return !blocked.check(address, 'ipv6');
  }
  return !blocked.check(address, 'ipv4');
}

export class ForbiddenAddress extends Error {}

/** A socket lookup that fails unless every address of the name is public (or private ones are allowed). */
export function guardedLookup(allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
      if (error) return callback(error, '', 0);
      const refused = allowPrivate ? undefined : addresses.find((entry) => !isPublicAddress(entry.address));
      if (refused) return callback(new ForbiddenAddress(`${hostname} resolves to a non-public address (${refused.address})`), '', 0);
      if ((options as { all?: boolean }).all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
      callback(null, addresses[0].address, addresses[0].family);
    });
  };
}

/** Resolves the URL's host now, as the call will: rejects with ForbiddenAddress when it is not public. */
export function checkHost(url: URL, allowPrivate: boolean): Promise<void> {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host)) {
    if (allowPrivate || isPublicAddress(host)) return Promise.resolve();
    return Promise.reject(new ForbiddenAddress(`${host} is not a public address`));
  }
  return new Promise((resolve, reject) => guardedLookup(allowPrivate)(host, {}, (error) => (error ? reject(error) : resolve())));
}
