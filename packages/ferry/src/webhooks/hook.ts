// A swap's webhook as the v2 create calls take it ({url, hashSwapId, status}, as in the reference's WebhookData):
// checked for shape here, its host checked against SSRF before the swap is created.
import { badRequest } from '../api/http/errors.ts';
import { checkHost, ForbiddenAddress } from './address-guard.ts';

export interface Webhook {
  url: string;
  /** Send SHA256(id) instead of the id: a third party processing the calls does not learn it. */
  hashSwapId: boolean;
  /** Statuses that call it; empty: every status. */
  status: string[];
}

export interface WebhookPolicy {
  /** Allow http:// URLs (the reference allows https only). */
  allowHttp: boolean;
  /** Allow hosts that resolve to private, loopback or link-local addresses. */
  allowPrivate: boolean;
}

const maxUrlLength = 2048;
const maxStatuses = 32;

/** The `webhook` field of a create request, or undefined when absent; 400 for anything malformed or forbidden. */
export async function parseWebhook(value: unknown, policy: WebhookPolicy): Promise<Webhook | undefined> {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'object' || Array.isArray(value)) throw badRequest('invalid parameter: webhook');
  const { url, hashSwapId, status } = value as Record<string, unknown>;
  if (url === undefined) throw badRequest('undefined parameter: webhook.url');
  if (typeof url !== 'string' || url.length > maxUrlLength) throw badRequest('invalid parameter: webhook.url');
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw badRequest('invalid parameter: webhook.url');
  }
  if (parsed.protocol !== 'https:' && !(policy.allowHttp && parsed.protocol === 'http:')) {
    throw badRequest(`invalid parameter: webhook.url (only ${policy.allowHttp ? 'http and ' : ''}https URLs are allowed)`);
  }
  if (parsed.username !== '' || parsed.password !== '') throw badRequest('invalid parameter: webhook.url (no credentials in the URL)');
  if (hashSwapId !== undefined && typeof hashSwapId !== 'boolean') throw badRequest('invalid parameter: webhook.hashSwapId');
  if (status !== undefined && (!Array.isArray(status) || status.length > maxStatuses || status.some((s) => typeof s !== 'string' || s.length > 64))) {
    throw badRequest('invalid parameter: webhook.status');
  }
  try {
    await checkHost(parsed, policy.allowPrivate);
  } catch (error) {
    if (error instanceof ForbiddenAddress) throw badRequest(`invalid parameter: webhook.url (${error.message})`);
    throw badRequest(`invalid parameter: webhook.url (cannot resolve ${parsed.hostname})`);
  }
  return { url: parsed.href, hashSwapId: hashSwapId ?? false, status: (status as string[] | undefined) ?? [] };
}
