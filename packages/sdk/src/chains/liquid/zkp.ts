// secp256k1-zkp (the C library elementsd itself links, compiled to WebAssembly) for Liquid's confidential
// transactions: blinding, range and surjection proofs, unblinding. It loads asynchronously, so every user — Ferry's
// Liquid code, the client SDK and the devnet's Elements node — awaits this one shared instance, and boltz-core's
// Liquid module, which keeps its own reference, is handed it once here. The package (its WebAssembly, 1.9 MB embedded
// as base64) is imported on the first call, not with this file: a browser bundle splits it into a chunk of its own,
// which a wallet that never touches L-BTC never downloads (packages/ferry/test/browser/ checks both).
import type { Secp256k1ZKP } from '@vulpemventures/secp256k1-zkp';
import * as liquid from 'boltz-core/dist/lib/liquid/index.js';
import type { Secp256k1Interface } from 'liquidjs-lib';
import { useLibsecp256k1 } from '../../keys/libsecp256k1.ts';

export type Zkp = Secp256k1ZKP;

let instance: Promise<Zkp> | undefined;
let ready: Zkp | undefined;

type ZkpLoader = (typeof import('@vulpemventures/secp256k1-zkp'))['default'];

/**
 * The package's loader, imported now. Under Node's ESM the default export is the CommonJS module.exports, whose
 * .default is the loader; a bundler for the browser (esbuild, Vite) takes the package's ES module build, whose default
 * export is the loader itself.
 */
async function zkpLoader(): Promise<ZkpLoader> {
  const imported: unknown = (await import('@vulpemventures/secp256k1-zkp')).default;
  return typeof imported === 'function' ? (imported as ZkpLoader) : (imported as { default: ZkpLoader }).default;
}

export function loadZkp(): Promise<Zkp> {
  instance ??= zkpLoader().then(async (load) => {
    const zkp = await load();
    liquid.init(zkp);
    // The swap keys' arithmetic (KeyAgg, tweak) runs in it from now on, on every chain.
    useLibsecp256k1(zkp);
    ready = zkp;
    return zkp;
  });
  return instance;
}

/** Loads secp256k1-zkp and initialises boltz-core's Liquid module: await it once before building Liquid spends. */
export const initLiquid = async (): Promise<void> => {
  await loadZkp();
};

/** The loaded instance, for synchronous code; throws before initLiquid (or loadZkp) has resolved. */
export function zkp(): Zkp {
  if (ready === undefined) throw new Error('secp256k1-zkp is not loaded: await initLiquid() first');
  return ready;
}

/** The same library as liquidjs-lib declares it (its interface differs only in nullability). */
export const zkpLib = (): Secp256k1Interface => zkp() as unknown as Secp256k1Interface;
