// A swap row as the status object of GET /v2/swap/{id}, WebSocket updates and SSE.
import type { SwapRecord } from '../db/index.ts';
import { machineFor } from '@ferry/sdk/swaps/machines.js';
import { SwapStatus as S, SwapType } from '@ferry/sdk/swaps/status.js';
import { chainData, reverseData, submarineData } from './data.ts';
import type { SwapStatusBody } from '@ferry/sdk/protocol/index.js';


export function statusBody(record: SwapRecord): SwapStatusBody {
  const body: SwapStatusBody = { status: record.status };
  if (record.type === SwapType.Submarine) {
    const data = submarineData(record);
    const lockup = data.lockup;
    if (record.status === S.TransactionMempool && lockup?.zeroConfRejected) body.zeroConfRejected = true;
    if ((record.status === S.TransactionMempool || record.status === S.TransactionConfirmed) && lockup) {
      body.transaction = { id: lockup.txid, hex: lockup.hex };
    }
    if (record.status === S.TransactionLockupFailed && data.failureDetails) body.failureDetails = data.failureDetails;
  } else if (record.type === SwapType.Chain) {
    const data = chainData(record);
    // The user's lockup while it is the news, then Ferry's: the client claims from its hex.
    const user = data.lockup;
    if (record.status === S.TransactionMempool && user?.zeroConfRejected) body.zeroConfRejected = true;
    if ((record.status === S.TransactionMempool || record.status === S.TransactionConfirmed) && user) body.transaction = { id: user.txid, hex: user.hex };
    const server = data.serverLockup;
    if (record.status === S.TransactionServerMempool && server) body.transaction = { id: server.txid, hex: server.hex, eta: 1 };
    if (record.status === S.TransactionServerConfirmed && server) body.transaction = { id: server.txid, hex: server.hex };
  } else {
    const lockup = reverseData(record).lockup;
    // Ferry pays the estimate for the next blocks, so it expects the lockup in the next one.
    if (record.status === S.TransactionMempool && lockup) body.transaction = { id: lockup.txid, hex: lockup.hex, eta: 1 };
    if (record.status === S.TransactionConfirmed && lockup) body.transaction = { id: lockup.txid, hex: lockup.hex };
  }
  const reason = record.data.failureReason;
  // A failed swap says why.
  if (machineFor(record.type).failed.includes(record.status) && typeof reason === 'string') body.failureReason = reason;
  return body;
}
