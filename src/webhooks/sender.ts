// Delivers webhook calls: POST {"event": "swap.update", "data": {"id", "status"}}, signed with HMAC-SHA256 of
// "<timestamp>.<body>" under the operator's webhook secret (headers X-Ferry-Timestamp, X-Ferry-Signature:
// sha256=<hex>), so a receiver can tell Ferry's calls from forgeries and replays. A call that fails (network,
// timeout, non-2xx) is retried with exponential backoff; redirects are not followed (they could lead anywhere).
// A receiver is untrusted: the whole call has one deadline (a socket idle timeout alone lets a receiver trickle a
// byte at a time forever), at most MAX_ANSWER_BYTES of its answer are read, and an IP literal is checked here
// because Node connects to one without calling the guarded lookup.
import { createHmac } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { Logger } from '../log/index.ts';
import { isIP } from 'node:net';
import { ForbiddenAddress, guardedLookup, isPublicAddress } from './address-guard.ts';

/** Enough for any status answer or BOLT12 invoice; a receiver sending more is cut off. */
export const MAX_ANSWER_BYTES = 64 * 1024;

export interface SenderOptions {
  secret: string;
  allowPrivate: boolean;
  /** Calls per delivery before giving up. */
  attempts: number;
  /** First retry delay; doubled each time, capped at 10 minutes. */
  backoffMs: number;
  timeoutMs: number;
}

export const signature = (secret: string, timestamp: string, body: string): string =>
  'sha256=' + createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex');

export class WebhookSender {
  private readonly timers = new Set<NodeJS.Timeout>();
  private closed = false;

  constructor(
    private readonly options: SenderOptions,
    private readonly logger: Logger,
  ) {}

  /** Sends now and retries in the background; never throws. */
  deliver(url: string, payload: unknown): void {
    void this.attempt(url, JSON.stringify(payload), 1);
  }

  /** One call whose answer matters (a BOLT12 invoice request): its status and body, no retries. */
  ask(url: string, payload: unknown): Promise<{ status: number; text: string }> {
    return this.call(url, JSON.stringify(payload));
  }

  close(): void {
    this.closed = true;
    for (const timer of this.timers) clearTimeout(timer);
  }

  private async attempt(url: string, body: string, attempt: number): Promise<void> {
    if (this.closed) return;
    const failure = await this.call(url, body).then(
      ({ status }) => (status >= 200 && status < 300 ? undefined : `answered ${status}`),
      (error: Error) => error.message,
    );
    if (failure === undefined) return;
    if (attempt >= this.options.attempts) {
      this.logger.warn('webhook given up', { url, attempts: attempt, reason: failure });
      return;
    }
    const delay = Math.min(this.options.backoffMs * 2 ** (attempt - 1), 600_000);
    this.logger.debug('webhook failed, retrying', { url, attempt, reason: failure, delayMs: delay });
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      void this.attempt(url, body, attempt + 1);
    }, delay);
    timer.unref();
    this.timers.add(timer);
  }

  private call(url: string, body: string): Promise<{ status: number; text: string }> {
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
          const chunks: Buffer[] = [];
          let read = 0;
          res.on('data', (chunk: Buffer) => {
            read += chunk.length;
            if (read > MAX_ANSWER_BYTES) req.destroy(new Error(`answer larger than ${MAX_ANSWER_BYTES} bytes`));
            else chunks.push(chunk);
          });
          res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
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
