// The operator's swap keys (BIP39 mnemonic → BIP32, one index per swap) and MuSig2 signing for Taproot swaps.
export { isValidMnemonic, MnemonicError } from './mnemonic.ts';
// loadOrCreateMnemonic (the operator's file) is mnemonic-file.ts's: Node only, so the SDK's share of keys/ stays pure.
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
export { aggregateKeys, BITCOIN_TAPROOT, serviceSwapOutputKey, swapOutputKey, tapTreeRoot, taprootTweak, type TaprootCommitment, type TaprootSwapKey } from './key-agg.ts';
