// GET /health: liveness and readiness of this instance for load balancers and operators, with its role when several
// instances share one database (leader or standby; both serve the whole API). Not part of the Boltz API document.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { version } from '../version.ts';
import { sendJson, type RawHandler } from './http/server.ts';

export const healthPath = '/health';

/** What the instance says about itself, e.g. { role: 'leader', since: ... }. */
export type HealthReport = () => Record<string, unknown>;

export function healthHandler(report: HealthReport): RawHandler {
  return async (request: IncomingMessage, response: ServerResponse) => {
    if (request.method !== 'GET' && request.method !== 'HEAD') return sendJson(response, 405, { error: `method not allowed: ${request.method} ${healthPath}` });
    sendJson(response, 200, { status: 'ok', version, ...report() });
  };
}
