// HTTP(S) to Core Lightning's clnrest: every call is `POST /v1/<method>` with the method's named parameters as a
// JSON object and the rune in the `Rune` header; a result comes back 201, an error as lightningd's JSON-RPC error
// object under clnrest's status; answers are read losslessly (json.ts: 64-bit integers as bigint). TLS is pinned to clnrest's CA when one is given (its certificates are self-signed).
import { requestNodeJson } from '../json-request.ts';
import { parseClnJson } from './json.ts';

export interface ClnTransportOptions {
  url: string; // https://host:3010 or http://host:port
  rune: string;
  tlsCert?: string | Buffer; // clnrest's ca.pem
  timeoutMs?: number;
}

/** A refusal by clnrest or lightningd: the HTTP status (0 over the JSON-RPC socket), the JSON-RPC error code (when one came) and its message. */
export class ClnRestError extends Error {
  constructor(
    readonly httpStatus: number,
    readonly code: number | undefined,
    message: string,
  ) {
    super(message);
    this.name = 'ClnRestError';
  }
}

function errorFrom(status: number, text: string): ClnRestError {
  try {
    const body = parseClnJson(text) as { code?: number; message?: string };
    return new ClnRestError(status, typeof body.code === 'number' ? body.code : undefined, body.message ?? text);
  } catch {
    return new ClnRestError(status, undefined, text || `HTTP ${status}`);
  }
}

/** What Ferry's CLN adapter calls lightningd through: clnrest (this file) or the JSON-RPC socket (socket-transport.ts). */
export interface ClnCaller {
  call<T>(method: string, params?: Record<string, unknown>, timeoutMs?: number): Promise<T>;
}

export class ClnTransport implements ClnCaller {
  private readonly base: URL;

  constructor(private readonly options: ClnTransportOptions) {
    this.base = new URL(options.url);
  }

  /** Calls `method`; `timeoutMs` overrides the default for calls that wait (pay). */
  call<T>(method: string, params: Record<string, unknown> = {}, timeoutMs?: number): Promise<T> {
    const body = Object.fromEntries(Object.entries(params).filter(([, v]) => v !== undefined));
    return requestNodeJson<T>(
      { url: new URL(`/v1/${method}`, this.base), method: 'POST', headers: { rune: this.options.rune }, body, tlsCert: this.options.tlsCert },
      timeoutMs ?? this.options.timeoutMs ?? 30_000,
      errorFrom,
      parseClnJson,
    );
  }
}
