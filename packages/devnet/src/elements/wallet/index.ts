// The Elements wallet primitives in one import, for the devnet's future elementsregtest node and its wallet RPCs.
export { ELEMENTS_REGTEST, POLICY_ASSET, loadZkp, type Zkp } from './network.ts';
export {
  ELEMENTS_ADDRESS_KINDS, ElementsKeys, blindingKeyForScript, hash160, masterBlindingKeyFromSeed,
  type ElementsAddressKind, type KeyPair,
} from './keys.ts';
export { confidentialAddress, decodeAddress, unconfidentialAddress, type DecodedAddress } from './address.ts';
export { ElementsWallet, type AddressInfo, type WalletAddress } from './wallet.ts';
export { UnblindError, explicitOutput, isConfidentialOutput, unblindOutput, type Unblinded } from '@ferry/sdk/chains/liquid/unblind.js';
export { unblindTransaction, unspentBlindingFields, type UnspentBlindingFields } from './views.ts';
export { buildBlindedPset, isP2tr, type BuildRequest, type BuiltOutput, type BuiltPset, type Coin, type Recipient } from './build.ts';
export { finalizeTransaction, signP2trKeyPathInput, signP2wpkhInput, verifyEcdsa } from './sign.ts';
export { DEFAULT_GENESIS_HASH, createTransaction, type SignedTransaction, type SpendRequest, type SpendableCoin } from './send.ts';
