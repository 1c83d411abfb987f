// The metrics endpoint: GET /metrics in Prometheus' text format on a listener of its own (by default
// 127.0.0.1:9002), apart from the public API, so swap counts and process figures are not served to the world and
// a scrape never competes with the API's rate limits.
import { createServer, type Server } from 'node:http';
import type { Logger } from '../log/index.ts';
import type { FerryMetrics } from './metrics.ts';

export const metricsPath = '/metrics';

export function createMetricsServer(metrics: FerryMetrics, logger: Logger): Server {
  return createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0];
    if (path !== metricsPath) {
      response.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: `not found: ${path}` }));
      return;
    }
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      response.writeHead(405, { 'content-type': 'application/json' }).end(JSON.stringify({ error: `method not allowed: ${request.method}` }));
      return;
    }
    metrics.registry.metrics().then(
      (text) => response.writeHead(200, { 'content-type': metrics.registry.contentType }).end(text),
      (error: Error) => {
        logger.warn('metrics scrape failed', { error: error.message });
        response.writeHead(503, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'metrics unavailable' }));
      },
    );
  });
}
