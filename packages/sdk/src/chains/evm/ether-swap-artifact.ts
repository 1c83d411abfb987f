// boltz-core's EtherSwap artifact (Foundry's out/EtherSwap.sol/EtherSwap.json, shipped in the package): its ABI and
// runtime code, with no copy in this repository to fall out of step. Imported as JSON with an import attribute, which
// Node (20.10+), tsx and bundlers all read, so the client SDK carries it into a browser bundle; alone in its module so
// a bundle of the client holds this artifact and not the service's others.
import etherSwap from 'boltz-core/out/EtherSwap.sol/EtherSwap.json' with { type: 'json' };
import type { InterfaceAbi } from 'ethers';
import type { DeployedBytecode } from './artifact-code.ts';

export const ETHER_SWAP_ABI = etherSwap.abi as InterfaceAbi;
export const ETHER_SWAP_DEPLOYED: DeployedBytecode = etherSwap.deployedBytecode;
