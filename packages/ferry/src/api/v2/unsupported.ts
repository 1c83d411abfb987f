// Reference endpoints of chains and features Ferry does not have, answered with a 4xx that names what is missing
// instead of a bare 404: Ark (no ARK chain) and EVM token quotes (the EVM chain has no tokens yet).
import { HttpError } from '../http/errors.ts';
import type { Router } from '../http/router.ts';
import { documented } from '../schema/documented.ts';

type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';

const ark = 'Ark is not supported: Ferry has no ARK chain';
const tokens = (currency: string) => `token swaps are not supported: ${currency} has no tokens in Ferry`;

const UNSUPPORTED: [Method, string, number, (params: Record<string, string>) => string][] = [
  ['POST', '/v2/swap/submarine/{id}/refund/ark', 400, () => ark],
  ['POST', '/v2/swap/chain/{id}/refund/ark', 400, () => ark],
  ['GET', '/v2/quote/{currency}/in', 400, (p) => tokens(p.currency)],
  ['GET', '/v2/quote/{currency}/out', 400, (p) => tokens(p.currency)],
  ['POST', '/v2/quote/{currency}/encode', 400, (p) => tokens(p.currency)],
];

export function unsupportedRoutes(router: Router): void {
  for (const [method, pattern, status, text] of UNSUPPORTED) {
    documented(router, method, pattern, { summary: `Not supported: ${text({ currency: '{currency}' })}` }, ({ params }) => {
      throw new HttpError(status, text(params));
    });
  }
}
