// The swap contracts' ABIs, read at run time from the Foundry artifacts boltz-core ships (out/*.json), the same
// files the devnet deploys from: Ferry then speaks exactly the interface of the contracts it serves, with no copy
// of an ABI (or bytecode) in this repository to fall out of step with the package.
import { createRequire } from 'node:module';
import { Interface, type InterfaceAbi } from 'ethers';

const files = {
  EtherSwap: 'boltz-core/out/EtherSwap.sol/EtherSwap.json',
  ERC20Swap: 'boltz-core/out/ERC20Swap.sol/ERC20Swap.json',
  ERC20: 'boltz-core/out/ERC20.sol/ERC20.json',
} as const;

export type AbiName = keyof typeof files;

/** The two swap contracts, by the names the API answers them under. */
export type SwapContractName = 'EtherSwap' | 'ERC20Swap';

const require = createRequire(import.meta.url);
const interfaces = new Map<AbiName, Interface>();

export function abiOf(name: AbiName): InterfaceAbi {
  return (require(files[name]) as { abi: InterfaceAbi }).abi;
}

/** Parsed once: every contract and log decoder of the chain shares it. */
export function interfaceOf(name: AbiName): Interface {
  let parsed = interfaces.get(name);
  if (!parsed) interfaces.set(name, (parsed = new Interface(abiOf(name))));
  return parsed;
}
