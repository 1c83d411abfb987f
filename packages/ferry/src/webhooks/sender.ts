// Makes webhook calls: a POST of JSON (e.g. {"event": "swap.update", "data": {"id", "status"}}), signed with
// HMAC-SHA256 of "<timestamp>.<body>" under the operator's webhook secret (headers X-Ferry-Timestamp,
// X-Ferry-Signature: sha256=<hex>), so a receiver can tell Ferry's calls from forgeries and replays. One call per
// send: retries are the delivery queue's (queue.ts). Redirects are not followed (they could lead anywhere).
// A receiver is untrusted: the whole call has one deadline (a socket idle timeout alone lets a receiver trickle a
// byte at a time forever), at most MAX_ANSWER_BYTES of its answer are read, and an IP literal is checked here
// because Node connects to one without calling the guarded lookup.
import { createHmac } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import { ForbiddenAddress, guardedLookup, isPublicAddress } from './address-guard.ts';

/** Enough for any status answer; a receiver sending more is cut off (its body is never used anyway). */
export const MAX_ANSWER_BYTES = 64 * 1024;

export interface SenderOptions {
  secret: string;
  allowPrivate: boolean;
  timeoutMs: number;
}

export const signature = (secret: string, timestamp: string, body: string): string =>
  'sha256=' + createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex');

export class WebhookSender {
  constructor(private readonly options: SenderOptions) {}

  /** One call of a JSON body; resolves with why it failed (network, timeout, non-2xx, a forbidden address), or undefined. */
  send(url: string, body: string): Promise<string | undefined> {
    return this.call(url, body).then(
      ({ status }) => (status >= 200 && status < 300 ? undefined : `answered ${status}`),
      (error: Error) => error.message,
    );
  }

  /**
   * One signed call whose answer matters (a BOLT12 invoice request's webhook answers with the invoice): the same
   * guards and deadline; the answer's status and body (at most MAX_ANSWER_BYTES, else it fails).
   */
  ask(url: string, payload: unknown): Promise<{ status: number; body: string }> {
    return this.call(url, JSON.stringify(payload));
  }

  private call(url: string, body: string): Promise<{ status: number; body: string }> {
    const timestamp = String(Math.floor(Date.now() / 1000));
    const target = new URL(url);
    const host = target.hostname.replace(/^\[|\]$/g, '');
    if (isIP(host) && !this.options.allowPrivate && !isPublicAddress(host)) {
      return Promise.reject(new ForbiddenAddress(`${host} is not a public address`));
    }
    const request = target.protocol === 'https:' ? httpsRequest : httpRequest;
    return new Promise((resolve, reject) => {
      const req = request(
        target,
        {
          method: 'POST',
          lookup: guardedLookup(this.options.allowPrivate),
          timeout: this.options.timeoutMs,
          headers: {
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(body),
            'user-agent': 'ferry-webhook',
            'x-ferry-timestamp': timestamp,
            'x-ferry-signature': signature(this.options.secret, timestamp, body),
          },
        },
        (res) => {
          let read = 0;
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => {
            read += chunk.length;
            if (read > MAX_ANSWER_BYTES) req.destroy(new Error(`answer larger than ${MAX_ANSWER_BYTES} bytes`));
            else chunks.push(chunk);
          });
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
          res.on('error', reject);
        },
      );
      const deadline = setTimeout(() => req.destroy(new Error(`not done within ${this.options.timeoutMs} ms`)), this.options.timeoutMs);
      deadline.unref();
      req.on('close', () => clearTimeout(deadline));
      req.on('timeout', () => req.destroy(new Error(`no answer within ${this.options.timeoutMs} ms`)));
      req.on('error', reject);
      req.end(body);
    });
  }
}
