// A small path router: exact segments and {param} segments, matched segment by segment.
import type { IncomingHttpHeaders } from 'node:http';

export interface Request {
  method: string;
  path: string;
  /** The request target exactly as sent (path and query, undecoded): what an HMAC signature covers. */
  target: string;
  query: URLSearchParams;
  params: Record<string, string>;
  headers: IncomingHttpHeaders;
  body: unknown; // parsed JSON, or undefined when there was no body
  rawBody: string;
}

export interface Reply {
  status?: number;
  body: unknown;
  /** `body` already as JSON text (a kept status body): sent as is. */
  json?: string;
}

export type Handler = (request: Request) => Reply | Promise<Reply>;

interface Route {
  method: string;
  pattern: string;
  segments: string[];
  handler: Handler;
}


/** A registered route as added: method and pattern ("/v2/swap/{id}"). */
export interface RouteInfo {
  method: string;
  pattern: string;
}

export class Router {
  private readonly routes: Route[] = [];

  add(method: string, pattern: string, handler: Handler): this {
    this.routes.push({ method, pattern, segments: pattern.split('/').filter(Boolean), handler });
    return this;
  }

  /** Every registered route, in the order added. */
  list(): RouteInfo[] {
    return this.routes.map(({ method, pattern }) => ({ method, pattern }));
  }

  /** Wraps the handler of a registered route, to act before and after it; false when no such route exists. */
  wrap(method: string, pattern: string, wrapper: (handler: Handler) => Handler): boolean {
    const route = this.routes.find((r) => r.method === method && r.pattern === pattern);
    if (route) route.handler = wrapper(route.handler);
    return route !== undefined;
  }

  get = (pattern: string, handler: Handler) => this.add('GET', pattern, handler);
  post = (pattern: string, handler: Handler) => this.add('POST', pattern, handler);

  /**
   * The handler for a path, or why there is none: 'not-found' or 'method' (path known, method not).
   * A fixed segment beats a {param}: /v2/swap/status wins over /v2/swap/{id} whatever the order of add().
   * `pattern` is the pattern the answering route was added with.
   */
  match(
    method: string,
    path: string,
  ): { handler: Handler; params: Record<string, string>; pattern: string } | 'not-found' | 'method' {
    const parts = path.split('/').filter(Boolean);
    let pathKnown = false;
    let best: { route: Route; params: Record<string, string>; paramCount: number } | undefined;
    for (const route of this.routes) {
      const params = matchSegments(route.segments, parts);
      if (!params) continue;
      if (route.method !== method) {
        pathKnown = true;
        continue;
      }
      const paramCount = Object.keys(params).length;
      if (!best || paramCount < best.paramCount) best = { route, params, paramCount };
    }
    if (best) return { handler: best.route.handler, params: best.params, pattern: best.route.pattern };
    return pathKnown ? 'method' : 'not-found';
  }
}

function matchSegments(pattern: string[], parts: string[]): Record<string, string> | undefined {
  if (pattern.length !== parts.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < pattern.length; i++) {
    const segment = pattern[i];
    if (segment.startsWith('{') && segment.endsWith('}')) {
      let value: string;
      try {
        value = decodeURIComponent(parts[i]);
      } catch {
        return undefined;
      }
      params[segment.slice(1, -1)] = value;
    } else if (segment !== parts[i]) {
      return undefined;
    }
  }
  return params;
}
