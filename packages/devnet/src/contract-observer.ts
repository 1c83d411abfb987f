// A seam for the test suite's contract checks: every exchange a devnet node's face answers (LND REST, clnrest, the
// hold plugin's gRPC, Bitcoin Core / Elements RPC) is shown to an observer a test run installs on globalThis, so both
// sides — what Ferry's adapters send and what the devnet answers — can be checked against the real daemons'
// published contracts (test/contracts/). Nothing is observed, and nothing costs anything, when none is installed.

export interface NodeExchange {
  face: 'lnd-rest' | 'clnrest' | 'hold-grpc' | 'bitcoin-rpc' | 'elements-rpc';
  node: string; // the devnet node's name
  method: string; // HTTP method (REST) or the RPC method's name
  path: string; // URL path without its query (REST); '' for RPC
  query: Record<string, string[]>; // REST query parameters
  request: unknown; // the parsed JSON body, or the RPC params
  status: number; // the HTTP status answered
  response: unknown; // the parsed answer (a stream's messages are shown one by one with `stream: true`)
  stream?: boolean;
  probe?: string; // a test's deliberate breach of the contract, and why: only the answer to it is judged
}

export type ExchangeObserver = (exchange: NodeExchange) => void;

const KEY = Symbol.for('ferry.devnet.exchange-observer');

/** Shows an exchange to the installed observer, if any; an observer's failure never reaches the node's answer. */
export function observeExchange(exchange: NodeExchange): void {
  const observer = (globalThis as Record<symbol, unknown>)[KEY] as ExchangeObserver | undefined;
  if (observer === undefined) return;
  try {
    observer(exchange);
  } catch {
    // the observer reports its own findings
  }
}

/** Installs (or, with undefined, removes) the observer for this process. */
export function setExchangeObserver(observer: ExchangeObserver | undefined): void {
  (globalThis as Record<symbol, unknown>)[KEY] = observer;
}

/** The query of a URL as observeExchange takes it. */
export const queryOf = (params: URLSearchParams): Record<string, string[]> => {
  const out: Record<string, string[]> = {};
  for (const [key, value] of params) (out[key] ??= []).push(value);
  return out;
};
