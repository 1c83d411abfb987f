// Installs a global Buffer where the platform has none (browsers, React Native) before anything else of the SDK
// loads: boltz-core, liquidjs-lib and bitcoinjs-lib call the global Buffer, not an import of their own. It comes from
// the `buffer` npm package, imported as 'buffer/index.js' so that Node and bundlers resolve the package, not Node's
// builtin; in Node the builtin global stays. The SDK's own code passes Uint8Array.
import { Buffer as BufferPolyfill } from 'buffer/index.js';

const scope = globalThis as { Buffer?: unknown };
scope.Buffer ??= BufferPolyfill;
