// Creating a chain swap from the client's side: fresh claim and refund keys and a preimage, the pair's advertised
// terms, the service's answer checked on both chains (verify-chain.ts), and the record with its refund files stored
// before anything is returned — only then should anyone send coins to the lockup address.
import type { SwapClient } from './client.ts';
import { VerificationError } from './errors.ts';
import { toHex } from './keys.ts';
import type { ChainRecord } from './records.ts';
import { refundFileOf } from './refund-file.ts';
import { serializeTree } from './taproot.ts';
import { chainPricingOf, verifyChain } from './verify-chain.ts';

export interface ChainSwapRequest {
  from: string;
  to: string;
  /** At most one; neither makes a zero-amount swap, priced when the service sees our lockup. */
  userLockAmount?: number;
  serverLockAmount?: number;
}

export async function createChainSwap(client: SwapClient, request: ChainSwapRequest): Promise<ChainRecord> {
  if (request.userLockAmount !== undefined && request.serverLockAmount !== undefined) throw new Error('give at most one of userLockAmount and serverLockAmount');
  const { from, to } = request;
  // One derived key claims on one chain and refunds on the other: a restore finds both sides by it.
  const { key: claimKey, preimage, preimageHash, keyIndex } = client.newSwapKey();
  const refundKey = claimKey;
  const pair = (await client.api.chainPairs())[from]?.[to];
  if (pair === undefined) throw new VerificationError(`the service has no chain swap from ${from} to ${to}`);
  const answer = await client.api.createChain({
    from,
    to,
    preimageHash: toHex(preimageHash),
    claimPublicKey: toHex(claimKey.publicKey),
    refundPublicKey: toHex(refundKey.publicKey),
    ...(request.userLockAmount !== undefined && { userLockAmount: request.userLockAmount }),
    ...(request.serverLockAmount !== undefined && { serverLockAmount: request.serverLockAmount }),
    pairHash: pair.hash,
  });
  const [fromHeight, toHeight] = await Promise.all([client.chainOf(from).height(), client.chainOf(to).height()]);
  const { id, user, server } = verifyChain({
    answer,
    from,
    to,
    claimKey,
    refundKey,
    preimageHash,
    userLockAmount: request.userLockAmount,
    serverLockAmount: request.serverLockAmount,
    pair,
    heights: { from: fromHeight, to: toHeight },
    network: client.network,
    policy: client.timeoutPolicy,
  });
  const record: ChainRecord = {
    version: 1,
    id,
    type: 'chain',
    serviceUrl: client.api.url,
    network: client.network,
    currency: from,
    createdAt: new Date().toISOString(),
    privateKey: toHex(refundKey.privateKey),
    publicKey: toHex(refundKey.publicKey),
    ...(keyIndex !== undefined && { keyIndex }),
    servicePublicKey: toHex(user.servicePublicKey),
    preimageHash: toHex(preimageHash),
    swapTree: serializeTree(user.tree),
    timeoutBlockHeight: user.timeoutBlockHeight,
    lockupAddress: user.address,
    ...(user.blindingKey !== undefined && { blindingKey: toHex(user.blindingKey) }),
    history: [],
    claimSide: {
      currency: to,
      privateKey: toHex(claimKey.privateKey),
      publicKey: toHex(claimKey.publicKey),
      servicePublicKey: toHex(server.servicePublicKey),
      swapTree: serializeTree(server.tree),
      timeoutBlockHeight: server.timeoutBlockHeight,
      lockupAddress: server.address,
      ...(server.blindingKey !== undefined && { blindingKey: toHex(server.blindingKey) }),
    },
    preimage: toHex(preimage),
    userLockAmount: user.amount,
    serverLockAmount: server.amount,
    ...(user.bip21 !== undefined && { bip21: user.bip21 }),
    pair: chainPricingOf(pair),
  };
  if (client.store) record.refundFiles = client.store.writeRefundFiles(refundFileOf(record));
  client.save(record);
  return record;
}
