// Assembles the API: every route of v1 and v2 on one router, served by one HTTP server.
import type { Server } from 'node:http';
import type { ChainService } from '../chains/chain-service.ts';
import type { LightningBackend } from '../lightning/backend.ts';
import type { Logger } from '../log/index.ts';
import { version } from '../version.ts';
import { Router } from './http/router.ts';
import { createHttpServer } from './http/server.ts';
import { chainRoutesV1 } from './v1/chain.ts';
import { chainRoutesV2 } from './v2/chain.ts';
import { nodeRoutes } from './nodes.ts';

export interface ApiDependencies {
  chains: ChainService;
  lightning: Record<string, LightningBackend>; // by chain symbol: BTC
  logger: Logger;
  maxBodyBytes: number;
}

export function createRouter(deps: ApiDependencies): Router {
  const router = new Router();
  router.get('/version', () => ({ body: { version } }));
  router.get('/v2/version', () => ({ body: { version } }));
  chainRoutesV1(router, deps.chains);
  chainRoutesV2(router, deps.chains);
  nodeRoutes(router, deps.lightning, deps.chains);
  return router;
}

export function createApiServer(deps: ApiDependencies): Server {
  return createHttpServer({ router: createRouter(deps), logger: deps.logger, maxBodyBytes: deps.maxBodyBytes });
}
