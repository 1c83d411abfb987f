// secp256k1-zkp (the C library elementsd itself links, compiled to WebAssembly) for the confidential
// proofs; it loads asynchronously, so every user awaits this one shared instance.
import zkpModule, { type Secp256k1ZKP } from '@vulpemventures/secp256k1-zkp';

export type Zkp = Secp256k1ZKP;

let instance: Promise<Zkp> | undefined;

export function loadZkp(): Promise<Zkp> {
  // A CommonJS package: under Node's ESM the default import is module.exports, whose .default is the loader.
  instance ??= zkpModule.default();
  return instance;
}
