// elementsd's wallet management RPCs: createwallet, loadwallet, unloadwallet, listwallets, listwalletdir.
import { RpcFailure, RPC_WALLET_ERROR } from '../../bitcoin/rpc/errors.ts';
import type { ElementsMethodTable } from './context.ts';

export const walletManagementMethods: ElementsMethodTable = {
  createwallet: {
    params: [
      { name: 'wallet_name', type: 'string', required: true },
      { name: 'disable_private_keys', type: 'bool' },
      { name: 'blank', type: 'bool' },
      { name: 'passphrase', type: 'string' },
      { name: 'avoid_reuse', type: 'bool' },
      { name: 'descriptors', type: 'bool' },
      { name: 'load_on_startup', type: 'bool' },
      { name: 'external_signer', type: 'bool' },
    ],
    run: ([name, disablePrivateKeys, blank, passphrase], { wallets }) => {
      if (disablePrivateKeys || blank || passphrase) {
        throw new RpcFailure(RPC_WALLET_ERROR, 'This devnet only creates plain wallets with private keys');
      }
      return { name: wallets.create(name as string).name, warning: '' };
    },
  },

  loadwallet: {
    params: [
      { name: 'filename', type: 'string', required: true },
      { name: 'load_on_startup', type: 'bool' },
    ],
    run: ([name], { wallets }) => ({ name: wallets.load(name as string).name, warning: '' }),
  },

  unloadwallet: {
    params: [
      { name: 'wallet_name', type: 'string' },
      { name: 'load_on_startup', type: 'bool' },
    ],
    run: ([name], ctx) => {
      ctx.wallets.unload(name !== undefined ? (name as string) : ctx.wallet().name);
      return { warning: '' };
    },
  },

  listwallets: { params: [], run: (_args, { wallets }) => wallets.names() },

  listwalletdir: {
    params: [],
    run: (_args, { wallets }) => ({ wallets: wallets.allNames().map((name) => ({ name })) }),
  },
};
