// The operator's swap keys (BIP39 mnemonic → BIP32, one index per swap) and MuSig2 signing for Taproot swaps.
export { loadOrCreateMnemonic, isValidMnemonic, MnemonicError } from './mnemonic.ts';
export { SwapKeys, swapKeyPath, type KeyPair, type Network } from './swap-keys.ts';
export {
  checkPublicNonce,
  InvalidNonce,
  InvalidPartialSignature,
  KeyPathSession,
  signForClient,
  signWithMusig,
  bitcoinSwapMusig,
  type SwapMusig,
  type StoredNonce,
  taprootSwapKey,
  type PartialSignature,
} from './musig.ts';
export { aggregateKeys, BITCOIN_TAPROOT, swapOutputKey, tapTreeRoot, taprootTweak, type TaprootCommitment, type TaprootSwapKey } from './key-agg.ts';
