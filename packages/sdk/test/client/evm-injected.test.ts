// connectEvmChain with a browser wallet's account: an EIP-1193 provider that holds the key and answers the chain's
// reads (here a small in-process wallet over an ethers Wallet, answering as a node with boltz-core's EtherSwap would).
// Checked: the account is the wallet's (asked with eth_requestAccounts when eth_accounts is empty), messages are signed
// by the wallet (personal_sign) and recover to its account, the service's contract is checked through the wallet as
// through a node (another chain id, other code: refused), and preimages derive only from a preimage key given.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { AbiCoder, Interface, Wallet, getAddress, getBytes, toQuantity, verifyMessage, type Eip1193Provider } from 'ethers';
import { VerificationError, connectEvmChain, isInjectedAccount } from '../../src/client/index.ts';
import { ETHER_SWAP_ABI, ETHER_SWAP_DEPLOYED } from '../../src/chains/evm/ether-swap-artifact.ts';
import type { ContractsInfo } from '../../src/chains/evm/contracts-info.ts';

const ETHER_SWAP = getAddress('0x5fbdb2315678afecb367f032d93f642f64180aa3');
const CHAIN_ID = 31337;
const etherSwap = new Interface(ETHER_SWAP_ABI);

const contracts = (chainId = CHAIN_ID): ContractsInfo => ({
  network: { chainId, name: 'anvil' },
  swapContracts: { EtherSwap: ETHER_SWAP, ERC20Swap: getAddress('0xe7f1725e7734ce288f8367e1bb143e90bb3f0512') },
  supportedContracts: {},
  tokens: {},
});

/** A wallet in the page's place: its account's key stays inside; every request it answers is recorded. */
function browserWallet(options: { code?: string; connected?: boolean } = {}) {
  const key = Wallet.createRandom();
  const asked: string[] = [];
  let connected = options.connected ?? false;
  const provider: Eip1193Provider = {
    async request({ method, params }) {
      asked.push(method);
      const args = (params ?? []) as unknown[];
      switch (method) {
        case 'eth_chainId':
          return toQuantity(CHAIN_ID);
        case 'eth_accounts':
          return connected ? [key.address.toLowerCase()] : [];
        case 'eth_requestAccounts':
          connected = true;
          return [key.address.toLowerCase()];
        case 'eth_blockNumber':
          return toQuantity(7);
        case 'eth_getCode':
          return options.code ?? ETHER_SWAP_DEPLOYED.object;
        case 'eth_call': {
          const call = args[0] as { to: string; data: string };
          assert.equal(getAddress(call.to), ETHER_SWAP);
          assert.equal(etherSwap.parseTransaction({ data: call.data })?.name, 'version');
          return AbiCoder.defaultAbiCoder().encode(['uint8'], [6]);
        }
        case 'personal_sign':
          assert.equal(getAddress(args[1] as string), key.address);
          return key.signMessage(getBytes(args[0] as string));
        default:
          throw Object.assign(new Error(`method ${method} not supported`), { code: 4200 });
      }
    },
  };
  return { provider, address: key.address, asked };
}

describe('connectEvmChain: an injected EIP-1193 wallet as the account', () => {
  test('the account is the wallet’s, asked for once; the wallet signs', async () => {
    const wallet = browserWallet();
    const account = { provider: wallet.provider };
    assert.ok(isInjectedAccount(account));
    const chain = await connectEvmChain({ account, contracts: contracts() });
    try {
      assert.equal(chain.address, wallet.address);
      assert.equal(chain.chainId, CHAIN_ID);
      assert.equal(chain.contractAddress, ETHER_SWAP);
      assert.ok(wallet.asked.includes('eth_requestAccounts'), 'no account was connected: the wallet is asked for one');
      assert.equal(await chain.height(), 7);
      const signature = await chain.signMessage('ferry restore 1');
      assert.equal(verifyMessage('ferry restore 1', signature), wallet.address, 'signed by the wallet’s key');
      assert.equal(wallet.asked.filter((method) => method === 'personal_sign').length, 1);
    } finally {
      chain.close();
    }
  });

  test('a wallet already connected is not asked again', async () => {
    const wallet = browserWallet({ connected: true });
    const chain = await connectEvmChain({ account: { provider: wallet.provider }, contracts: contracts() });
    chain.close();
    assert.equal(chain.address, wallet.address);
    assert.ok(!wallet.asked.includes('eth_requestAccounts'));
  });

  test('the contract is checked through the wallet: another chain or other code is refused', async () => {
    await assert.rejects(connectEvmChain({ account: { provider: browserWallet().provider }, contracts: contracts(30) }), (error) => {
      assert.ok(error instanceof VerificationError);
      assert.match(error.message, /contracts are on chain 30, but the wallet's network is chain 31337/);
      return true;
    });
    const other = `${ETHER_SWAP_DEPLOYED.object.slice(0, -2)}00`;
    await assert.rejects(connectEvmChain({ account: { provider: browserWallet({ code: other }).provider }, contracts: contracts() }), /does not run boltz-core's EtherSwap code/);
    await assert.rejects(connectEvmChain({ account: { provider: {} as Eip1193Provider }, contracts: contracts() }), /not an EIP-1193 provider/);
    await assert.rejects(connectEvmChain({ account: { privateKey: Wallet.createRandom().privateKey }, contracts: contracts() }), /an EVM node \(rpcUrl\) is needed/);
  });

  test('preimages derive from a preimage key only: the wallet never shows its own', async () => {
    const bare = await connectEvmChain({ account: { provider: browserWallet().provider }, contracts: contracts() });
    bare.close();
    assert.equal(bare.derivesPreimages, false);
    assert.throws(() => bare.preimageAt(0), /no preimage key was given/);

    const preimageKey = Uint8Array.from({ length: 32 }, (_, i) => i);
    const [one, two] = await Promise.all([1, 2].map(() => connectEvmChain({ account: { provider: browserWallet().provider, preimageKey }, contracts: contracts() })));
    one.close();
    two.close();
    assert.equal(one.derivesPreimages, true);
    assert.deepEqual(one.preimageAt(3), two.preimageAt(3), 'the same key derives the same preimages, whatever the account');
    assert.notDeepEqual(one.preimageAt(3), one.preimageAt(4));
    assert.equal(one.preimageAt(0).length, 32);
  });
});
