// MuSig2 signing sessions Ferry opened with clients: one per swap and purpose, replaced when a new one is opened,
// and marked used by one atomic update before its nonce signs, so no nonce ever signs twice whichever instance asks.
import type { Queryable } from '../types.ts';
import type { Clock } from './common.ts';

export interface SigningSessionRecord {
  swapId: string;
  purpose: string;
  publicNonce: string; // hex
  sealedSecretNonce: string; // hex, encrypted by the engine
  message: string; // hex
  transactionHex: string;
  used: boolean;
  createdAt: number;
}

interface Row {
  swap_id: string;
  purpose: string;
  public_nonce: string;
  sealed_secret_nonce: string;
  message: string;
  transaction_hex: string;
  used: number | string;
  created_at: number | string;
}

const fromRow = (row: Row): SigningSessionRecord => ({
  swapId: row.swap_id,
  purpose: row.purpose,
  publicNonce: row.public_nonce,
  sealedSecretNonce: row.sealed_secret_nonce,
  message: row.message,
  transactionHex: row.transaction_hex,
  used: Number(row.used) !== 0,
  createdAt: Number(row.created_at),
});

export class SigningSessionRepository {
  constructor(
    private readonly q: Queryable,
    private readonly now: Clock,
  ) {}

  async get(swapId: string, purpose: string): Promise<SigningSessionRecord | undefined> {
    const rows = await this.q.query<Row>('SELECT * FROM signing_sessions WHERE swap_id = $1 AND purpose = $2', [swapId, purpose]);
    return rows[0] === undefined ? undefined : fromRow(rows[0]);
  }

  /** Opens a session, replacing an earlier one of the same swap and purpose. */
  async open(session: Omit<SigningSessionRecord, 'used' | 'createdAt'>): Promise<void> {
    await this.q.execute(
      `INSERT INTO signing_sessions (swap_id, purpose, public_nonce, sealed_secret_nonce, message, transaction_hex, used, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, 0, $7)
       ON CONFLICT (swap_id, purpose) DO UPDATE SET public_nonce = excluded.public_nonce,
         sealed_secret_nonce = excluded.sealed_secret_nonce, message = excluded.message,
         transaction_hex = excluded.transaction_hex, used = 0, created_at = excluded.created_at`,
      [session.swapId, session.purpose, session.publicNonce, session.sealedSecretNonce, session.message, session.transactionHex, this.now()],
    );
  }

  /** True for exactly one caller: the one that may sign with this session's nonce. */
  async markUsed(swapId: string, purpose: string, publicNonce: string): Promise<boolean> {
    const result = await this.q.execute(
      'UPDATE signing_sessions SET used = 1 WHERE swap_id = $1 AND purpose = $2 AND public_nonce = $3 AND used = 0',
      [swapId, purpose, publicNonce],
    );
    return result.changes === 1;
  }

  async deleteForSwap(swapId: string): Promise<void> {
    await this.q.execute('DELETE FROM signing_sessions WHERE swap_id = $1', [swapId]);
  }
}
