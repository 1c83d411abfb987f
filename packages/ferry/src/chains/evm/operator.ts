// The operator's EVM account, derived from Ferry's one mnemonic (as the swap keys and Liquid's blinding key are),
// so backing up the mnemonic backs up the RBTC too. The path is BIP44's Ethereum account 0 (coin type 60), what
// MetaMask and anvil use for a mnemonic's first address: an operator can open the same account in any wallet.
// The swap keys live under m/44'/0' or m/44'/1' (src/keys/swap-keys.ts), so the two never meet.
import { HDNodeWallet, Mnemonic, type Provider } from 'ethers';

export const OPERATOR_PATH = "m/44'/60'/0'/0/0";

export function operatorWallet(mnemonic: string, provider?: Provider): HDNodeWallet {
  const wallet = HDNodeWallet.fromMnemonic(Mnemonic.fromPhrase(mnemonic), OPERATOR_PATH);
  return provider ? wallet.connect(provider) : wallet;
}
