// Every port Ferry and its devnet listen on, made ephemeral (0): test files run in parallel, and the fixed defaults
// (API 9001, metrics 9002, devnet bitcoin 18443, devnet Elements 18884, devnet EVM 8545) would collide. A new listening port belongs here, so no
// test that starts Ferry or a devnet is left holding a fixed one.
// Every test environment spreads this object, so it also turns off the per-address request buckets: tests send
// bursts of requests from one address (127.0.0.1). test/api/limits.test.ts turns them back on.
export const ephemeralPorts = {
  FERRY_API_PORT: '0',
  FERRY_DEVNET_BITCOIN_PORT: '0',
  FERRY_DEVNET_ELEMENTS_PORT: '0',
  FERRY_DEVNET_EVM_PORT: '0',
  FERRY_METRICS_PORT: '0',
  FERRY_LIMITS_READ_BURST: '0',
  FERRY_LIMITS_CREATE_BURST: '0',
};

/** The same for startDevnet's options. */
export const ephemeralDevnetPorts = { bitcoinPort: 0, elementsPort: 0, evmPort: 0 };

/** A TCP port free on 127.0.0.1 now, for a daemon that cannot listen on port 0 itself (lightningd's --addr). */
export async function freeLocalPort(): Promise<number> {
  const { createServer } = await import('node:net');
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
