// Turns the swap contracts' raw logs into typed events through the contracts' own ABIs (ethers decodes; no
// hand-written topic or data parsing), so a Lockup's fields are exactly what the contract emitted.
import { getAddress, type Log } from 'ethers';
import { interfaceOf, type SwapContractName } from './abi.ts';
import type { EventPlacement, EvmSwapEvent } from './events.ts';
import { NATIVE_DECIMALS, toApiUnits } from '@ferry/sdk/chains/evm/units.js';

/** The decimals of an ERC20 token, for its API units (the follower reads and caches them). */
export type DecimalsOf = (token: string) => Promise<number>;

/** The event a log carries, or undefined for a log of another event (or one the ABI cannot decode). */
export async function decodeSwapLog(
  chain: string,
  contract: SwapContractName,
  log: Log,
  decimalsOf: DecimalsOf,
): Promise<EvmSwapEvent | undefined> {
  const parsed = interfaceOf(contract).parseLog({ topics: [...log.topics], data: log.data });
  if (!parsed) return undefined;
  const placement: EventPlacement = {
    chain,
    contract,
    contractAddress: getAddress(log.address),
    txHash: log.transactionHash,
    logIndex: log.index,
    block: { height: log.blockNumber, hash: log.blockHash },
  };
  const args = parsed.args;
  switch (parsed.name) {
    case 'Lockup': {
      const amount = args.getValue('amount') as bigint;
      const tokenAddress = contract === 'ERC20Swap' ? getAddress(args.getValue('tokenAddress') as string) : undefined;
      const decimals = tokenAddress === undefined ? NATIVE_DECIMALS : await decimalsOf(tokenAddress);
      return {
        ...placement,
        type: 'lockup',
        preimageHash: (args.getValue('preimageHash') as string).toLowerCase(),
        amount,
        apiAmount: toApiUnits(amount, decimals),
        ...(tokenAddress !== undefined && { tokenAddress }),
        claimAddress: getAddress(args.getValue('claimAddress') as string),
        refundAddress: getAddress(args.getValue('refundAddress') as string),
        timelock: Number(args.getValue('timelock') as bigint),
      };
    }
    case 'Claim':
      return {
        ...placement,
        type: 'claim',
        preimageHash: (args.getValue('preimageHash') as string).toLowerCase(),
        preimage: (args.getValue('preimage') as string).toLowerCase(),
      };
    case 'Refund':
      return { ...placement, type: 'refund', preimageHash: (args.getValue('preimageHash') as string).toLowerCase() };
    default:
      return undefined;
  }
}
