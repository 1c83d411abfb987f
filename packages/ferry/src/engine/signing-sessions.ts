// MuSig2 sessions Ferry opens with a client and finishes later, kept in the database so any instance can finish
// one and a restart loses none. The secret nonce is sealed with a pad derived from the swap's private key and the
// public nonce (unique per session), so the database alone never reveals it; a session is marked used in the
// database before its nonce signs, so it signs at most once.
import { hmac } from '@noble/hashes/hmac.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { hex } from '@scure/base';
import type { ChainBackend, SwapSigner } from '@ferry/sdk/chains/backend.js';
import type { SigningSessionRecord, Storage } from '../db/index.ts';
import { KeyPathSession, type StoredNonce } from '@ferry/sdk/keys/index.js';

function pad(privateKey: Uint8Array, publicNonce: Uint8Array, length: number): Uint8Array {
  const out = new Uint8Array(length);
  for (let block = 0; block * 32 < length; block++) {
    const chunk = hmac(sha256, privateKey, new Uint8Array([...new TextEncoder().encode('ferry musig2 nonce'), block, ...publicNonce]));
    out.set(chunk.subarray(0, Math.min(32, length - block * 32)), block * 32);
  }
  return out;
}

const xor = (a: Uint8Array, b: Uint8Array): Uint8Array => a.map((byte, i) => byte ^ b[i]);

export interface OpenSession {
  record: SigningSessionRecord;
  session: KeyPathSession;
}

export class SigningSessions {
  constructor(private readonly storage: Storage) {}

  /** Opens a new session for `message`, replacing an earlier one of the same swap and purpose. */
  async open(
    swapId: string,
    purpose: string,
    chain: ChainBackend,
    signer: SwapSigner,
    message: Uint8Array,
    transactionHex: string,
  ): Promise<KeyPathSession> {
    const session = new KeyPathSession(chain.musig(signer), signer.clientPublicKey, message);
    const nonce = session.nonce;
    await this.storage.signingSessions.open({
      swapId,
      purpose,
      publicNonce: hex.encode(nonce.public),
      sealedSecretNonce: hex.encode(xor(nonce.secret, pad(signer.servicePrivateKey, nonce.public, nonce.secret.length))),
      message: hex.encode(message),
      transactionHex,
    });
    return session;
  }

  /** The open (unused) session of a swap and purpose, rebuilt with its stored nonce. */
  async find(swapId: string, purpose: string, chain: ChainBackend, signer: SwapSigner): Promise<OpenSession | undefined> {
    const record = await this.storage.signingSessions.get(swapId, purpose);
    if (record === undefined || record.used) return undefined;
    const publicNonce = hex.decode(record.publicNonce);
    const sealed = hex.decode(record.sealedSecretNonce);
    const nonce: StoredNonce = { public: publicNonce, secret: xor(sealed, pad(signer.servicePrivateKey, publicNonce, sealed.length)) };
    return { record, session: new KeyPathSession(chain.musig(signer), signer.clientPublicKey, hex.decode(record.message), nonce) };
  }

  /** True for the one caller allowed to sign with this session's nonce. */
  claimForSigning(record: SigningSessionRecord): Promise<boolean> {
    return this.storage.signingSessions.markUsed(record.swapId, record.purpose, record.publicNonce);
  }
}
