// EtherSwap of boltz-core 2.x (contract version 4) beside the devnet's, boltz-core 4.x (version 6), on the devnet's
// anvil: the calls a wallet makes keep their selectors (lock, claim, refund, refundCooperative, version), while the
// swap's key in `swaps` (hashValues), the Lockup event's indexed fields and the EIP-712 refund signature differ —
// what docs/architecture.md lists, checked here.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AbiCoder, Contract, ContractFactory, Signature, Wallet, keccak256, parseEther, sha256, solidityPackedKeccak256, type InterfaceAbi } from 'ethers';
import { artifact } from '../../src/evm/contracts.ts';
import { startEvmDevnet, type EvmDevnet } from '../../src/evm/index.ts';

const v2Artifact = createRequire(import.meta.url)('boltz-core-v2/out/EtherSwap.sol/EtherSwap.json') as {
  abi: InterfaceAbi;
  bytecode: { object: string };
};

let dataDir: string;
let evm: EvmDevnet;
let operator: Wallet;
let user: Wallet;
const swaps: Record<'v2' | 'v4', { contract: Contract; version: string; refundField: string }> = {} as never;

before(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'ferry-etherswap-versions-'));
  evm = await startEvmDevnet({ dataDir, port: 0 });
  operator = new Wallet(evm.info.accounts.operator.privateKey, evm.provider);
  user = new Wallet(evm.info.accounts.user.privateKey, evm.provider);
  const deployed = await new ContractFactory(v2Artifact.abi, v2Artifact.bytecode.object, operator).deploy();
  await deployed.waitForDeployment();
  swaps.v2 = { contract: new Contract(await deployed.getAddress(), v2Artifact.abi, user), version: '4', refundField: 'timeout' };
  swaps.v4 = { contract: new Contract(evm.info.contracts.etherSwap, artifact('etherSwap').abi, user), version: '6', refundField: 'timelock' };
});

after(async () => {
  await evm?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

/** The user locks 0.1 RBTC for the operator through the 3-argument lock both versions have. */
async function lock(name: 'v2' | 'v4') {
  const { contract } = swaps[name];
  const preimage = randomBytes(32);
  const timelock = (await evm.provider.getBlockNumber()) + 50;
  const values = { preimageHash: sha256(preimage), amount: parseEther('0.1'), claimAddress: operator.address, timelock };
  const lockFor = contract.getFunction('lock(bytes32,address,uint256)');
  const sent = await lockFor(values.preimageHash, values.claimAddress, values.timelock, { value: values.amount });
  return { preimage, values, receipt: (await sent.wait())! };
}

describe('EtherSwap: boltz-core 2.x (version 4) and 4.x (version 6)', () => {
  test('version() answers 4 and 6 under the same selector', async () => {
    assert.equal(await swaps.v2.contract.getFunction('version')(), 4n);
    assert.equal(await swaps.v4.contract.getFunction('version')(), 6n);
    const calls = [
      'version()',
      'lock(bytes32,address,uint256)',
      'claim(bytes32,uint256,address,uint256)',
      'claim(bytes32,uint256,address,address,uint256)',
      'refund(bytes32,uint256,address,uint256)',
      'refundCooperative(bytes32,uint256,address,uint256,uint8,bytes32,bytes32)',
    ];
    for (const call of calls) {
      const selectors = [swaps.v2, swaps.v4].map(({ contract }) => contract.interface.getFunction(call)!.selector);
      assert.equal(selectors[0], selectors[1], call);
    }
  });

  test('the swap key: abi.encodePacked in 2.x, 32-byte words in 4.x; Lockup indexes claimAddress only in 4.x', async () => {
    for (const name of ['v2', 'v4'] as const) {
      const { values, receipt } = await lock(name);
      const fields = [values.preimageHash, values.amount, values.claimAddress, user.address, values.timelock];
      const key = name === 'v2'
        ? solidityPackedKeccak256(['bytes32', 'uint256', 'address', 'address', 'uint256'], fields)
        : keccak256(AbiCoder.defaultAbiCoder().encode(['bytes32', 'uint256', 'address', 'address', 'uint256'], fields));
      assert.equal(await swaps[name].contract.getFunction('hashValues')(...fields), key, name);
      assert.equal(await swaps[name].contract.getFunction('swaps')(key), true, `${name}: locked under that key`);
      assert.equal(receipt.logs[0]!.topics.length, name === 'v2' ? 3 : 4, `${name}: Lockup topics`);
    }
  });

  test('refundCooperative: the EIP-712 Refund of one version is an invalid signature on the other', async () => {
    for (const name of ['v2', 'v4'] as const) {
      const other = name === 'v2' ? 'v4' : 'v2';
      const { values } = await lock(name);
      const sign = async (version: 'v2' | 'v4') => {
        const { version: domainVersion, refundField } = swaps[version];
        const verifyingContract = await swaps[name].contract.getAddress();
        const domain = { name: 'EtherSwap', version: domainVersion, chainId: evm.info.chainId, verifyingContract };
        const types = {
          Refund: [
            { name: 'preimageHash', type: 'bytes32' },
            { name: 'amount', type: 'uint256' },
            { name: 'claimAddress', type: 'address' },
            { name: refundField, type: 'uint256' },
          ],
        };
        const value = { preimageHash: values.preimageHash, amount: values.amount, claimAddress: values.claimAddress, [refundField]: values.timelock };
        return Signature.from(await operator.signTypedData(domain, types, value));
      };
      const refundCooperative = swaps[name].contract.getFunction('refundCooperative(bytes32,uint256,address,uint256,uint8,bytes32,bytes32)');
      const refund = ({ v, r, s }: Signature) => refundCooperative(values.preimageHash, values.amount, values.claimAddress, values.timelock, v, r, s);
      await assert.rejects(refund(await sign(other)), /invalid signature|InvalidSignature|reverted/, `${name} refuses ${other}'s signature`);
      await (await refund(await sign(name))).wait();
    }
  });
});
