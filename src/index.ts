// The package's public surface for integrators.
export { startFerry, type Ferry } from './app.ts';
export { loadConfig, type FerryConfig } from './config/index.ts';
export { CoreRpcClient, RpcError } from './chains/core-rpc.ts';
export { startDevnet, readDevnetInfo, type DevnetInfo } from './devnet/index.ts';
// The client SDK: create, check, follow, claim and refund swaps against any service of this interface.
export * from './client/node.ts';
