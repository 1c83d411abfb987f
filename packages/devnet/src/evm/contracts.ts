// The devnet's swap contracts: boltz-core's EtherSwap, ERC20Swap and TestERC20, deployed from the Foundry artifacts
// (out/*.json) the boltz-core package ships, by the operator account on a new chain (nonces 0, 1, 2, as boltz-core's
// Deploy script orders them) and half the test tokens handed to the user. On a restored chain the contracts found
// at the recorded addresses (the same runtime code, immutables aside) are kept, never deployed over.
import { createRequire } from 'node:module';
import { runsArtifactCode } from '@ferry/sdk/chains/evm/artifact-code.js';
import { TOKEN } from './token.ts';
import { Contract, ContractFactory, getCreateAddress, type InterfaceAbi, type Provider, type Signer } from 'ethers';

export const contractNames = ['etherSwap', 'erc20Swap', 'token'] as const;
export type ContractName = (typeof contractNames)[number];
export type Contracts = Record<ContractName, string>;

interface Artifact {
  abi: InterfaceAbi;
  bytecode: { object: string };
  deployedBytecode: { object: string; immutableReferences?: Record<string, { start: number; length: number }[]> };
}

const files: Record<ContractName, string> = {
  etherSwap: 'boltz-core/out/EtherSwap.sol/EtherSwap.json',
  erc20Swap: 'boltz-core/out/ERC20Swap.sol/ERC20Swap.json',
  token: 'boltz-core/out/TestERC20.sol/TestERC20.json',
};

const require = createRequire(import.meta.url);
export const artifact = (name: ContractName): Artifact => require(files[name]) as Artifact;

/** TestERC20's constructor: boltz-core's Deploy script's name, symbol and decimals, a larger supply. */
export { TOKEN } from './token.ts';

/** Runtime code equals the artifact's, with the immutables (EIP-712 domain: chain id and own address) blanked. */
export const isArtifactCode = (code: string, name: ContractName): boolean => runsArtifactCode(code, artifact(name).deployedBytecode);

export async function ensureContracts(provider: Provider, operator: Signer, user: string, recorded?: Partial<Contracts>): Promise<Contracts> {
  const from = await operator.getAddress();
  const found: Partial<Contracts> = {};
  for (const [nonce, name] of contractNames.entries()) {
    // Where a first start put it, when devnet.json lost track.
    const address = recorded?.[name] ?? getCreateAddress({ from, nonce });
    if (isArtifactCode(await provider.getCode(address), name)) found[name] = address;
  }
  for (const name of contractNames) {
    if (found[name]) continue;
    const { abi, bytecode } = artifact(name);
    const args = name === 'token' ? [TOKEN.name, TOKEN.symbol, TOKEN.decimals, TOKEN.supply] : [];
    const contract = await new ContractFactory(abi, bytecode.object, operator).deploy(...args);
    await contract.deploymentTransaction()!.wait();
    found[name] = await contract.getAddress();
    if (name === 'token') {
      const token = new Contract(found[name], abi, operator);
      await (await token.getFunction('transfer')(user, TOKEN.supply / 2n)).wait();
    }
  }
  return found as Contracts;
}
