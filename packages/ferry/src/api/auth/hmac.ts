// HMAC authentication of partner calls (the referral report). A request carries TS (UNIX seconds), API-KEY and
// API-HMAC = hex HMAC-SHA256 keyed with the key's secret over TS + METHOD + path with query (+ the raw body of a
// POST). The checks run in the reference implementation's order with its texts, so a partner's client sees the
// answers it was written against. Keys and HMACs are compared in constant time.
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { HttpError } from '../http/errors.ts';
import type { Request } from '../http/router.ts';

export interface ApiCredential {
  apiKey: string;
  apiSecret: string;
}

/** How far TS may be from the server clock, in seconds: a captured request stops working after this. */
export const MAX_CLOCK_DEVIATION_SECONDS = 60;

const unauthorized = (message: string) => new HttpError(401, message);

function header(request: Request, name: string): string | undefined {
  const value = request.headers[name];
  const text = Array.isArray(value) ? value.join(', ') : value;
  return text === undefined || text === '' ? undefined : text;
}

/** The signed path: the request target byte for byte as the client sent it, query and escapes included. */
export function signedTarget(request: Pick<Request, 'target'>): string {
  return request.target;
}

/** The API-HMAC value for a request: what a client computes, and what the server expects. */
export function requestHmac(secret: string, ts: string, method: string, target: string, body = ''): string {
  const upper = method.toUpperCase();
  return createHmac('sha256', secret)
    .update(ts + upper + target + (upper === 'POST' ? body : ''))
    .digest('hex');
}

const digest = (text: string) => createHash('sha256').update(text).digest();

/** Equal-length digests, so neither the comparison nor its length says how much of the key matched. */
function findCredential<T extends ApiCredential>(credentials: readonly T[], apiKey: string): T | undefined {
  const given = digest(apiKey);
  let found: T | undefined;
  for (const credential of credentials) {
    if (timingSafeEqual(given, digest(credential.apiKey)) && found === undefined) found = credential;
  }
  return found;
}

/** The credential that signed the request, or a 401 HttpError naming the first check that failed. */
export function authenticate<T extends ApiCredential>(
  request: Request,
  credentials: readonly T[],
  nowSeconds: number = Date.now() / 1000,
): T {
  const ts = header(request, 'ts');
  if (ts === undefined) throw unauthorized('TS header not set');
  if (!/^-?\d+(\.\d+)?$/.test(ts.trim())) throw unauthorized('TS header not a number');
  if (Math.abs(Number(ts) - nowSeconds) > MAX_CLOCK_DEVIATION_SECONDS) {
    throw unauthorized(`TS header deviates from server time by more than ${MAX_CLOCK_DEVIATION_SECONDS} seconds`);
  }
  const apiKey = header(request, 'api-key');
  if (apiKey === undefined) throw unauthorized('API-KEY header not set');
  const credential = findCredential(credentials, apiKey);
  if (credential === undefined) throw unauthorized('unauthorized');
  const given = header(request, 'api-hmac');
  if (given === undefined) throw unauthorized('API-HMAC header not set');
  const expected = Buffer.from(requestHmac(credential.apiSecret, ts, request.method, signedTarget(request), request.rawBody));
  const received = Buffer.from(given.toLowerCase());
  if (received.length !== expected.length || !timingSafeEqual(received, expected)) throw unauthorized('unauthorized');
  return credential;
}
