// HTTP(S) to Core Lightning's clnrest: every call is `POST /v1/<method>` with the method's named parameters as a
// JSON object and the rune in the `Rune` header; a result comes back 201, an error as lightningd's JSON-RPC error
// object under clnrest's status. TLS is pinned to clnrest's CA when one is given (its certificates are self-signed).
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';

export interface ClnTransportOptions {
  url: string; // https://host:3010 or http://host:port
  rune: string;
  tlsCert?: string | Buffer; // clnrest's ca.pem
  timeoutMs?: number;
}

/** A refusal by clnrest or lightningd: the HTTP status, the JSON-RPC error code (when one came) and its message. */
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
    const body = JSON.parse(text) as { code?: number; message?: string };
    return new ClnRestError(status, body.code, body.message ?? text);
  } catch {
    return new ClnRestError(status, undefined, text || `HTTP ${status}`);
  }
}

export class ClnTransport {
  private readonly base: URL;

  constructor(private readonly options: ClnTransportOptions) {
    this.base = new URL(options.url);
  }

  /** Calls `method`; `timeoutMs` overrides the default for calls that wait (pay). */
  call<T>(method: string, params: Record<string, unknown> = {}, timeoutMs?: number): Promise<T> {
    const url = new URL(`/v1/${method}`, this.base);
    const payload = JSON.stringify(Object.fromEntries(Object.entries(params).filter(([, v]) => v !== undefined)));
    const secure = url.protocol === 'https:';
    const send = secure ? httpsRequest : httpRequest;
    return new Promise<T>((resolve, reject) => {
      const req = send(
        url,
        {
          method: 'POST',
          headers: { rune: this.options.rune, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(payload)) },
          ...(secure && this.options.tlsCert !== undefined ? { ca: this.options.tlsCert } : {}),
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('error', reject);
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            if ((res.statusCode ?? 500) >= 300) return reject(errorFrom(res.statusCode ?? 500, text));
            try {
              resolve(JSON.parse(text) as T);
            } catch {
              reject(new ClnRestError(res.statusCode ?? 500, undefined, 'invalid JSON from clnrest'));
            }
          });
        },
      );
      req.setTimeout(timeoutMs ?? this.options.timeoutMs ?? 30_000, () => req.destroy(new Error(`clnrest call ${method} timed out`)));
      req.on('error', reject);
      req.end(payload);
    });
  }
}
