// The package's public surface for integrators.
export { startFerry, type Ferry } from './app.ts';
export { loadConfig, type FerryConfig } from './config/index.ts';
export { CoreRpcClient, RpcError } from '@ferry/sdk/chains/core-rpc.js';
export { startDevnet, readDevnetInfo, type DevnetInfo } from '@ferry/devnet/index.js';
// The client SDK: create, check, follow, claim and refund swaps against any service of this interface.
export * from '@ferry/sdk/client/node.js';
