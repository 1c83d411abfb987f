// The swap contracts' ABIs, from the Foundry artifacts boltz-core ships (out/*.json), the same files the devnet
// deploys from: Ferry then speaks exactly the interface of the contracts it serves, with no copy of an ABI (or
// bytecode) in this repository to fall out of step with the package. JSON imports with an import attribute, as
// ether-swap-artifact.ts explains.
import erc20Swap from 'boltz-core/out/ERC20Swap.sol/ERC20Swap.json' with { type: 'json' };
import erc20 from 'boltz-core/out/ERC20.sol/ERC20.json' with { type: 'json' };
import { Interface, type InterfaceAbi } from 'ethers';
import { ETHER_SWAP_ABI } from '@ferry/sdk/chains/evm/ether-swap-artifact.js';

const abis = {
  EtherSwap: ETHER_SWAP_ABI,
  ERC20Swap: erc20Swap.abi as InterfaceAbi,
  ERC20: erc20.abi as InterfaceAbi,
} as const;

export type AbiName = keyof typeof abis;

/** The two swap contracts, by the names the API answers them under. */
export type SwapContractName = 'EtherSwap' | 'ERC20Swap';

const interfaces = new Map<AbiName, Interface>();

export function abiOf(name: AbiName): InterfaceAbi {
  return abis[name];
}

/** Parsed once: every contract and log decoder of the chain shares it. */
export function interfaceOf(name: AbiName): Interface {
  let parsed = interfaces.get(name);
  if (!parsed) interfaces.set(name, (parsed = new Interface(abiOf(name))));
  return parsed;
}
