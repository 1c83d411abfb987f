// A swap row as the status object of GET /v2/swap/{id}, WebSocket updates and SSE.
import type { SwapRecord } from '../db/index.ts';
import { machineFor } from '../swaps/machines.ts';
import { SwapStatus as S, SwapType } from '../swaps/status.ts';
import { reverseData, submarineData } from './data.ts';
import type { SwapStatusBody } from '../protocol/index.ts';


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
