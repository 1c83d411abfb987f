// GET /v2/swagger.json: Ferry's own API document, built when asked from the router itself and the schemas its
// routes validate with (src/api/schema), so it names exactly the routes served. Added last: it lists every route.
import { version } from '../../version.ts';
import type { Router } from '../http/router.ts';
import { apiDocument } from '../schema/documented.ts';

export const API_DOCUMENT_PATH = '/v2/swagger.json';

export function apiDocumentRoute(router: Router): void {
  router.get(API_DOCUMENT_PATH, () => ({ body: apiDocument(router, { title: 'Ferry swap API', version }) }));
}
