// The devnet's ERC20 token, described apart from the contracts that deploy it: Ferry's configuration names it, and
// writing that configuration must not load ethers (half a second of every `ferry devnet` command's start).
export const TOKEN = { name: 'TestERC20', symbol: 'TRC20', decimals: 18, supply: 1_000_000n * 10n ** 18n };
