// HTTP(S) to LND's REST gateway: the macaroon on every request, TLS pinned to the node's certificate when one
// is given, JSON bodies, and server streams read as newline-delimited JSON.
import type { IncomingMessage } from 'node:http';
import { openNodeRequest, requestNodeJson, type NodeRequest } from '../json-request.ts';

export interface LndTransportOptions {
  url: string; // https://host:8080 or http://host:port
  macaroonHex: string;
  tlsCert?: string | Buffer; // PEM; required by LND for https, since its certificate is self-signed
  timeoutMs?: number;
}

export class LndRestError extends Error {
  constructor(
    readonly httpStatus: number,
    readonly code: number | undefined,
    message: string,
  ) {
    super(message);
    this.name = 'LndRestError';
  }
}

function errorFrom(status: number, text: string): LndRestError {
  try {
    const body = JSON.parse(text) as { code?: number; message?: string; error?: { code?: number; message?: string } };
    const inner = body.error ?? body;
    return new LndRestError(status, inner.code, inner.message ?? text);
  } catch {
    return new LndRestError(status, undefined, text || `HTTP ${status}`);
  }
}

export class LndTransport {
  private readonly base: URL;

  constructor(private readonly options: LndTransportOptions) {
    this.base = new URL(options.url);
  }

  private nodeRequest(method: string, path: string, body: unknown): NodeRequest {
    return {
      url: new URL(path, this.base),
      method,
      headers: { 'grpc-metadata-macaroon': this.options.macaroonHex },
      body,
      tlsCert: this.options.tlsCert,
    };
  }

  private open(method: string, path: string, body: unknown, onResponse: (res: IncomingMessage) => void) {
    return openNodeRequest(this.nodeRequest(method, path, body), onResponse);
  }

  request<T>(method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown): Promise<T> {
    return requestNodeJson<T>(this.nodeRequest(method, path, body), this.options.timeoutMs ?? 30_000, errorFrom);
  }

  // Calls onMessage with each `result`; an `{"error": ...}` line rejects `done`. `close` ends it quietly.
  stream(
    method: 'GET' | 'POST',
    path: string,
    body: unknown,
    onMessage: (result: unknown) => void,
  ): { close(): void; done: Promise<void> } {
    let closing = false;
    let req: ReturnType<LndTransport['open']>;
    const done = new Promise<void>((resolve, reject) => {
      req = this.open(method, path, body, (res) => {
        let buffer = '';
        let failed = false;
        const status = res.statusCode ?? 500;
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          buffer += chunk;
          let newline: number;
          while ((newline = buffer.indexOf('\n')) >= 0) {
            const line = buffer.slice(0, newline).trim();
            buffer = buffer.slice(newline + 1);
            if (line === '' || failed) continue;
            let message: { result?: unknown; error?: unknown };
            try {
              message = JSON.parse(line) as { result?: unknown; error?: unknown };
            } catch {
              failed = true;
              reject(new LndRestError(status, undefined, 'invalid JSON line from LND'));
              continue;
            }
            if (message.error !== undefined || status >= 300) {
              failed = true;
              reject(errorFrom(status, line));
              continue;
            }
            try {
              onMessage(message.result);
            } catch (err) {
              failed = true;
              reject(err as Error);
            }
          }
        });
        res.on('end', () => {
          if (failed) return;
          if (status >= 300) return reject(errorFrom(status, buffer));
          if (buffer.trim() !== '') {
            const message = JSON.parse(buffer) as { result?: unknown; error?: unknown };
            if (message.error !== undefined) return reject(errorFrom(status, buffer));
            onMessage(message.result);
          }
          resolve();
        });
        res.on('error', (err) => (closing ? resolve() : reject(err)));
        res.on('close', () => {
          if (closing) resolve();
          else if (!res.complete && !failed) reject(new LndRestError(status, undefined, 'LND closed the stream'));
        });
      });
      req.on('error', (err) => (closing ? resolve() : reject(err)));
    });
    return {
      close: () => {
        closing = true;
        req.destroy();
      },
      done,
    };
  }
}
