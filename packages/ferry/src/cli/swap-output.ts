// What `ferry swap` prints: one readable line per step for people, or one JSON object per line (--json)
// for scripts. Results go to stdout, problems to stderr.
import type { FollowEvent } from '@ferry/sdk/client/follow.js';
import type { SwapRecord } from '@ferry/sdk/client/records.js';
import type { StatusUpdate } from '@ferry/sdk/client/types.js';

export interface Output {
  json: boolean;
  /** A readable line, or a JSON object, for one thing that happened. */
  event(name: string, fields: Record<string, unknown>, text: string): void;
  problem(text: string): void;
}

export function createOutput(json: boolean, write = (s: string) => process.stdout.write(s), writeError = (s: string) => process.stderr.write(s)): Output {
  return {
    json,
    event(name, fields, text) {
      write(json ? JSON.stringify({ event: name, ...fields }) + '\n' : text + '\n');
    },
    problem(text) {
      writeError(text + '\n');
    },
  };
}

export const btc = (sat: number | bigint): string => (Number(sat) / 1e8).toFixed(8);
const short = (txid: string) => `${txid.slice(0, 12)}…`;

/** A sentence for each status, from the point of view of the swap's user. */
export function describeStatus(record: SwapRecord, update: StatusUpdate): string {
  const tx = update.transaction?.id;
  // The user locks first in submarine and chain swaps; in a chain swap the service locks in turn.
  const submarine = record.type !== 'reverse';
  const chain = record.type === 'chain';
  switch (update.status) {
    case 'swap.created':
      if (record.type === 'chain') return record.userLockAmount > 0 ? `waiting for ${btc(record.userLockAmount)} ${record.currency} to ${record.lockupAddress}` : `waiting for a lockup to ${record.lockupAddress}`;
      return submarine ? 'waiting for the invoice' : 'waiting for the invoice to be paid';
    case 'invoice.set':
      return record.type === 'submarine' ? `waiting for ${btc(record.expectedAmount)} ${record.currency} to ${record.lockupAddress}` : 'the invoice is set';
    case 'transaction.mempool':
      if (!submarine) return `the service locked the coins in ${tx ? short(tx) : 'a transaction'} (unconfirmed)`;
      return `lockup ${tx ? short(tx) : ''} is in the mempool` + (update.zeroConfRejected ? ': waiting for a confirmation' : '');
    case 'transaction.confirmed':
      return submarine ? `lockup ${tx ? short(tx) : ''} confirmed` : `the service's lockup ${tx ? short(tx) : ''} confirmed`;
    case 'transaction.lockupFailed':
      return `the lockup is wrong: ${update.failureReason ?? 'unknown reason'}`;
    case 'invoice.pending':
      return 'the service is paying the invoice';
    case 'invoice.paid':
      return 'the invoice is paid';
    case 'invoice.failedToPay':
      return `the service could not pay the invoice${update.failureReason ? `: ${update.failureReason}` : ''}`;
    case 'transaction.server.mempool':
      return `the service locked ${record.type === 'chain' ? record.claimSide.currency : ''} in ${tx ? short(tx) : 'a transaction'} (unconfirmed)`;
    case 'transaction.server.confirmed':
      return `the service's lockup ${tx ? short(tx) : ''} confirmed`;
    case 'transaction.claim.pending':
      return chain ? 'the service knows the preimage and claims our lockup' : 'the service asks for our signature on its claim';
    case 'transaction.claimed':
      return 'the service claimed the lockup: swap complete';
    case 'invoice.settled':
      return 'the invoice is settled: swap complete';
    case 'invoice.expired':
      return 'the invoice expired unpaid';
    case 'transaction.failed':
      return chain ? 'the service could not lock its coins; our lockup is to be refunded' : 'the service could not lock the coins; the payment goes back';
    case 'transaction.refunded':
      return chain ? 'the service took its lockup back after its timeout; ours is to be refunded' : 'the service took its coins back after the timeout';
    case 'swap.expired':
      return `the swap expired${update.failureReason ? `: ${update.failureReason}` : ''}`;
    case 'minerfee.paid':
      return 'the miner fee invoice is paid';
    default:
      return update.status;
  }
}

/** Prints one event of a followed swap. */
export function printFollowEvent(output: Output, record: SwapRecord, event: FollowEvent): void {
  const prefix = `swap ${event.id}:`;
  switch (event.type) {
    case 'status': {
      const { update } = event;
      output.event('status', { ...update, type: record.type }, `${prefix} ${update.status} — ${describeStatus(record, update)}`);
      break;
    }
    case 'cosigned':
      output.event('cosigned', { id: event.id, preimage: event.preimage }, `${prefix} co-signed the service's claim (preimage ${event.preimage} proves the invoice was paid)`);
      break;
    case 'claimed': {
      const { claim } = event;
      output.event(
        'claimed',
        { id: event.id, txid: claim.txid, path: claim.path, amount: Number(claim.amount), fee: Number(claim.fee), address: claim.destination },
        `${prefix} claimed ${claim.amount} sat to ${claim.destination} in ${claim.txid} (${claim.path} path, fee ${claim.fee} sat)`,
      );
      break;
    }
    case 'refunded': {
      const { refund } = event;
      output.event(
        'refunded',
        { id: event.id, txid: refund.txid, path: refund.path, amount: Number(refund.amount), fee: Number(refund.fee), address: refund.destination },
        `${prefix} refunded ${refund.amount} sat to ${refund.destination} in ${refund.txid} (${refund.path} path, fee ${refund.fee} sat)`,
      );
      break;
    }
    case 'quoted':
      output.event('quoted', { id: event.id, amount: event.amount }, `${prefix} accepted the service's quote: it locks ${event.amount} sat for what we locked`);
      break;
    case 'warning':
      output.event('warning', { id: event.id, message: event.message }, `${prefix} warning: ${event.message}`);
      break;
  }
}
