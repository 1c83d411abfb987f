// The two sides of a chain swap as created, on either kind of chain: on a UTXO chain a Taproot output of Ferry's
// key and the client's; on a contract chain (RBTC) the swap contract and the addresses its `lock` must name, with
// no keys, tree or script. What the request must carry for each kind (a key, or an address, or nothing) is checked
// here, so a UTXO request shape on a contract chain (or the other way round) is refused as an invalid parameter.
import { hex } from '@scure/base';
import type { ChainBackend } from '@ferry/sdk/chains/backend.js';
import { isContractChain } from '@ferry/sdk/chains/contract-chain.js';
import { SwapError, invalidParameter, undefinedParameter, type CreateChainRequest } from '@ferry/sdk/protocol/index.js';
import type { ChainSide } from '@ferry/sdk/swaps/chain-machine.js';
import type { AnyChain } from '../context.ts';
import { publicKey } from '../input.ts';

/** What the client names on each side: its refund key on a UTXO `from`, its claim key or address on `to`. */
export interface ClientCredentials {
  refundPublicKey?: Uint8Array;
  claimPublicKey?: Uint8Array;
  claimAddress?: string;
}

export function clientCredentials(request: CreateChainRequest, from: AnyChain, to: AnyChain): ClientCredentials {
  const out: ClientCredentials = {};
  if (isContractChain(from)) {
    // The client's `lock` names its refund address itself.
    if (request.refundPublicKey !== undefined) {
      throw new SwapError('invalid', `invalid parameter: refundPublicKey (a ${from.symbol} lockup is refunded to the address that locked it)`);
    }
  } else {
    out.refundPublicKey = publicKey(request.refundPublicKey, 'refundPublicKey');
  }
  if (isContractChain(to)) {
    if (request.claimPublicKey !== undefined) throw new SwapError('invalid', `invalid parameter: claimPublicKey (a ${to.symbol} lockup is claimed by claimAddress)`);
    if (request.claimAddress === undefined) throw undefinedParameter('claimAddress');
    if (!to.isAddress(request.claimAddress)) throw invalidParameter('claimAddress');
    out.claimAddress = request.claimAddress;
  } else {
    if (request.claimAddress !== undefined) throw invalidParameter('claimAddress');
    out.claimPublicKey = publicKey(request.claimPublicKey, 'claimPublicKey');
  }
  return out;
}

export interface SideTerms {
  preimageHash: Uint8Array;
  timeoutBlockHeight: number;
  amount: number;
  startHeight: number;
}

/** The user's side: coins the client locks, which Ferry claims (its key, or its account on a contract chain). */
/** Ferry's key pair of the swap: the private key makes the output's aggregate cheaper to compute (serviceSwapOutputKey). */
export interface ServiceKey {
  publicKey: Uint8Array;
  privateKey: Uint8Array;
}

export function userSide(chain: AnyChain, serviceKey: ServiceKey, client: ClientCredentials, terms: SideTerms): ChainSide {
  if (isContractChain(chain)) {
    return contractSide(chain.symbol, { address: chain.contractAddress, claimAddress: chain.serviceAddress }, terms);
  }
  return outputSide(chain, { kind: 'chainUser', claimPublicKey: serviceKey.publicKey, refundPublicKey: client.refundPublicKey! }, serviceKey, terms);
}

/** Ferry's side: coins Ferry locks, which the client claims (its key, or its claimAddress on a contract chain). */
export function serverSide(chain: AnyChain, serviceKey: ServiceKey, client: ClientCredentials, terms: SideTerms): ChainSide {
  if (isContractChain(chain)) {
    return contractSide(chain.symbol, { address: chain.contractAddress, claimAddress: client.claimAddress!, refundAddress: chain.serviceAddress }, terms);
  }
  return outputSide(chain, { kind: 'reverse', claimPublicKey: client.claimPublicKey!, refundPublicKey: serviceKey.publicKey }, serviceKey, terms);
}

function outputSide(
  chain: ChainBackend,
  keys: { kind: 'chainUser' | 'reverse'; claimPublicKey: Uint8Array; refundPublicKey: Uint8Array },
  serviceKey: ServiceKey,
  terms: SideTerms,
): ChainSide {
  const output = chain.swapOutput({
    ...keys,
    preimageHash: terms.preimageHash,
    timeoutBlockHeight: terms.timeoutBlockHeight,
    servicePublicKey: serviceKey.publicKey,
    servicePrivateKey: serviceKey.privateKey,
  });
  return {
    chain: chain.symbol,
    claimPublicKey: hex.encode(keys.claimPublicKey),
    refundPublicKey: hex.encode(keys.refundPublicKey),
    swapTree: output.tree,
    lockupScript: output.script,
    address: output.address,
    ...(output.blindingKey !== undefined && { blindingKey: output.blindingKey }),
    timeoutBlockHeight: terms.timeoutBlockHeight,
    amount: terms.amount,
    startHeight: terms.startHeight,
  };
}

/** A contract side keeps the contract and addresses (ContractSwapData); its keys and script are empty, as the legs expect. */
function contractSide(symbol: string, contract: NonNullable<ChainSide['contract']>, terms: SideTerms): ChainSide {
  return {
    chain: symbol,
    claimPublicKey: '',
    refundPublicKey: '',
    swapTree: undefined as unknown as ChainSide['swapTree'],
    lockupScript: '',
    address: contract.address,
    contract,
    timeoutBlockHeight: terms.timeoutBlockHeight,
    amount: terms.amount,
    startHeight: terms.startHeight,
  };
}
