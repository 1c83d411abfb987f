// libsecp256k1, as secp256k1-zkp's WebAssembly build (which Ferry loads for Liquid anyway) offers it, for the
// elliptic-curve work every new swap does: its output's KeyAgg and x-only tweak took ~1.2 ms in noble's pure
// JavaScript, ~0.4 ms here, the largest share of a creation's CPU, and its key's public point. It loads
// asynchronously, so synchronous code takes it once loaded and noble until then; both give the same bytes
// (test/engine/key-agg.test.ts, keys.test.ts).

/** The part of secp256k1-zkp's interface the swap keys use. */
export interface Libsecp256k1 {
  musig: { pubkeyAgg(publicKeys: Uint8Array[]): { aggPubkey: Uint8Array } };
  ecc: {
    xOnlyPointAddTweak(point: Uint8Array, tweak: Uint8Array): { parity: 0 | 1; xOnlyPubkey: Uint8Array } | null;
    pointFromScalar(scalar: Uint8Array, compressed?: boolean): Uint8Array | null;
    pointAddScalar(point: Uint8Array, tweak: Uint8Array, compressed?: boolean): Uint8Array | null;
  };
}

let loaded: Libsecp256k1 | undefined;

/** Called by the module that loads secp256k1-zkp (src/chains/liquid/zkp.ts), once it is ready. */
export function useLibsecp256k1(lib: Libsecp256k1): void {
  loaded = lib;
}

export const libsecp256k1 = (): Libsecp256k1 | undefined => loaded;
