// Gives Ferry's operator account coins on the devnet's chain: Ferry's account derives from Ferry's own mnemonic
// (not anvil's), so on a new chain it holds nothing, and a reverse swap's lock and every claim need RBTC for the
// value and the gas. Topped up from anvil's funded account 0 (the devnet's operator) at each start.
import { parseEther, type JsonRpcProvider, type Wallet } from 'ethers';

/** What each funded account is topped up to. */
export const FUNDED_BALANCE = parseEther('100');

/** Sends each address what it lacks of `balance`; nothing to one that holds enough (a restart). */
export async function fundAccounts(provider: JsonRpcProvider, from: Wallet, addresses: readonly string[], balance = FUNDED_BALANCE): Promise<void> {
  for (const address of addresses) {
    const held = await provider.getBalance(address);
    if (held >= balance / 2n) continue;
    const sent = await from.sendTransaction({ to: address, value: balance - held });
    await sent.wait();
  }
}
