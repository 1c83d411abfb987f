// One request to a Lightning node's REST interface over HTTP(S), TLS pinned to the node's certificate when one is
// given, with a JSON body and a JSON answer: the half the LND and CLN transports share. Each adds its credential
// header and reads its daemon's errors (`errorFrom`).
import { request as httpRequest, type ClientRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';

export interface NodeRequest {
  url: URL;
  method: string;
  headers: Record<string, string>;
  body?: unknown;
  tlsCert?: string | Buffer;
}

export function openNodeRequest(request: NodeRequest, onResponse: (res: IncomingMessage) => void): ClientRequest {
  const payload = request.body === undefined ? undefined : JSON.stringify(request.body);
  const headers = { ...request.headers };
  if (payload !== undefined) {
    headers['content-type'] = 'application/json';
    headers['content-length'] = String(Buffer.byteLength(payload));
  }
  const secure = request.url.protocol === 'https:';
  const send = secure ? httpsRequest : httpRequest;
  const req = send(
    request.url,
    { method: request.method, headers, ...(secure && request.tlsCert !== undefined ? { ca: request.tlsCert } : {}) },
    onResponse,
  );
  if (payload !== undefined) req.write(payload);
  req.end();
  return req;
}

/**
 * The answer parsed as JSON (by `parse`: JSON.parse unless the daemon needs more, as CLN's 64-bit integers do); a
 * status of 300 or more, or a body that is not JSON, rejects with `errorFrom`.
 */
export function requestNodeJson<T>(
  request: NodeRequest,
  timeoutMs: number,
  errorFrom: (status: number, text: string) => Error,
  parse: (text: string) => unknown = JSON.parse,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const req = openNodeRequest(request, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', reject);
      res.on('end', () => {
        const status = res.statusCode ?? 500;
        const text = Buffer.concat(chunks).toString('utf8');
        if (status >= 300) return reject(errorFrom(status, text));
        try {
          resolve(parse(text) as T);
        } catch {
          reject(errorFrom(status, `invalid JSON from ${request.url.host}`));
        }
      });
    });
    req.setTimeout(timeoutMs, () => req.destroy(new Error(`request ${request.url.pathname} timed out`)));
    req.on('error', reject);
  });
}
