// Checks of the EVM chain (RBTC): the node answers on the expected chain id with swap contracts of the version
// Ferry decodes — connectEvm's own checks, run once without waiting — and the operator account holds enough for
// the largest lockup Ferry may send.
import type { FerryConfig } from '../config/index.ts';
import { MemoryCheckpointStore } from '../chains/checkpoint.ts';
import { silentLogger } from '../log/index.ts';
import { generateMnemonic } from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english.js';
import { CheckList, errorText } from './check.ts';

export interface EvmCheckOptions {
  config: FerryConfig;
  /** The operator's mnemonic; undefined when it is not known: the balance is then not checked. */
  mnemonic: string | undefined;
  /** Why the mnemonic is not known (not made yet, encrypted with no passphrase): the balance check's warning. */
  mnemonicUnknown?: string;
  largestLockupSat: number;
}

export async function checkEvm(options: EvmCheckOptions): Promise<CheckList> {
  const list = new CheckList('evm');
  const [{ connectEvm }, { evmSettings }] = await Promise.all([import('../chains/evm/connect.ts'), import('../chains/evm/settings.ts')]);
  let backend;
  try {
    backend = await connectEvm(evmSettings(options.config), {
      checkpoints: new MemoryCheckpointStore(),
      // any key will do to read the chain and the contracts when the operator's is not made yet
      mnemonic: options.mnemonic ?? generateMnemonic(wordlist, 128),
      logger: silentLogger, // its failures are thrown, and its 'reachable' line would repeat the start's
      attempts: 1,
    });
  } catch (error) {
    list.fail('contracts', errorText(error).replace(/^evm: /, ''));
    return list;
  }
  try {
    list.ok('chain', `chain id ${backend.chainId}`);
    list.ok('contracts', `EtherSwap and ERC20Swap version ${backend.version}`);
    if (options.mnemonic === undefined) {
      list.warn('balance', options.mnemonicUnknown ?? 'no mnemonic: the operator account is not known');
      return list;
    }
    const wei = await backend.provider.getBalance(backend.signer.address);
    const needed = BigInt(options.largestLockupSat) * 10n ** 10n;
    const detail = `${backend.signer.address} holds ${wei} wei, the largest lockup is ${needed} wei`;
    if (wei < needed) list.warn('balance', `${detail}: larger reverse and chain swaps will fail to lock`);
    else list.ok('balance', detail);
  } catch (error) {
    list.fail('balance', errorText(error));
  } finally {
    await backend.close();
  }
  return list;
}
