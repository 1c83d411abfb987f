// The `Buffer` the page's bundle gives dependencies that call the global one (boltz-core, bitcoinjs-lib,
// liquidjs-lib): the `buffer` package, injected by bundle.ts into every module that names it. The SDK's
// buffer-global.ts sets the global too, but the script is split into chunks (the RBTC wallet code, the zkp chunk)
// whose order of evaluation esbuild does not keep: a chunk could run before the one that sets it.
import { Buffer } from 'buffer/index.js';

export { Buffer };
