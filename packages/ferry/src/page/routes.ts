// Serves the swap page on the API's own HTTP server: the markup at the configured path, its script and stylesheet
// under <path>/page/, the script's chunks under <path>/page/assets/. The build starts with Ferry and runs beside it;
// a request that comes before it is done waits for it. Files go out gzip-compressed to browsers that accept it. The
// markup, app.js and the stylesheet keep their names from build to build: revalidated by ETag (a 304 when
// unchanged). A chunk's name carries its content hash: a new build names a changed chunk anew, so browsers keep
// chunks for a year without asking again. A chunk is found by name in the build's files, never on disk.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from '../log/index.ts';
import type { RawHandler } from '../api/http/server.ts';
import { sendJson } from '../api/http/server.ts';
import type { BuiltPage } from './bundle.ts';

export interface PageOptions {
  /** Where the page is served: '/' (default), or a path like '/swap'. */
  path: string;
  network: string;
  logger: Logger;
  /** Where the built script is cached across restarts (Ferry: <dataDir>/page-cache); none: built at every start. */
  cacheDir?: string;
}

export interface PageRoutes {
  /** Raw routes by exact path, for the API server. */
  routes: Map<string, RawHandler>;
  /** The chunks' route, by prefix (<path>/page/assets/), for the API server. */
  prefixes: { prefix: string; handler: RawHandler }[];
  /** The build, once done (rejects when it failed: the page then answers 503 and the API is served as ever). */
  built: Promise<BuiltPage>;
  /** The page's path, to print. */
  path: string;
}

/** A page path: '/' or '/segment[/segment...]' of URL-safe characters, no trailing slash. */
export function checkPagePath(path: string): string {
  if (path === '/') return path;
  if (!/^(\/[A-Za-z0-9._~-]+)+$/.test(path)) throw new Error(`page.path must be "/" or like "/swap" (no trailing slash): ${JSON.stringify(path)}`);
  return path;
}

export function pageRoutes(options: PageOptions): PageRoutes {
  const path = checkPagePath(options.path);
  const base = path === '/' ? '' : path;
  // Loaded here, not at Ferry's start: a Ferry with the page off never loads esbuild, and one where it cannot load
  // serves the API all the same (the page answers 503, the log says why).
  const built = import('./bundle.ts').then(({ buildPage }) => buildPage({ base, network: options.network, cacheDir: options.cacheDir }));
  built.then(
    (page) => options.logger.info(page.cached ? 'swap page read from its cache' : 'swap page built', { path, ms: page.buildMs, bytes: page.assets.get('page/app.js')!.body.length }),
    (error: Error) => options.logger.error('swap page not built: it answers 503', { error: error.message }),
  );
  built.catch(() => undefined);

  const serve = (name: string): RawHandler => (request: IncomingMessage, response: ServerResponse) => answer(request, response, name);

  async function answer(request: IncomingMessage, response: ServerResponse, name: string): Promise<void> {
    if (request.method !== 'GET' && request.method !== 'HEAD') return sendJson(response, 405, { error: `method not allowed: ${request.method} ${request.url}` });
    let page: BuiltPage;
    try {
      page = await built;
    } catch {
      return sendJson(response, 503, { error: 'the swap page could not be built: see the log' });
    }
    const file = page.assets.get(name);
    if (file === undefined) return sendJson(response, 404, { error: `not found: ${request.method} ${request.url}` });
    const chunk = name.startsWith(CHUNKS);
    const headers: Record<string, string> = {
      'content-type': file.contentType,
      etag: file.etag,
      'cache-control': chunk ? 'public, max-age=31536000, immutable' : 'no-cache',
      vary: 'accept-encoding',
      'x-content-type-options': 'nosniff',
      ...(name === '' && { 'content-security-policy': CSP, 'referrer-policy': 'no-referrer' }),
    };
    if (request.headers['if-none-match'] === file.etag) return void response.writeHead(304, headers).end();
    const gzip = /\bgzip\b/.test(String(request.headers['accept-encoding'] ?? ''));
    const body = gzip ? file.gzip : file.body;
    if (gzip) headers['content-encoding'] = 'gzip';
    headers['content-length'] = String(body.length);
    response.writeHead(200, headers);
    response.end(request.method === 'HEAD' ? undefined : body);
  }

  // <path>/page/assets/<name>.js: only names esbuild gives (letters, digits, '-', '_'), so '..', '/' and '%2e' never
  // reach the lookup; a name the build did not make is a 404 like any other.
  const chunkPrefix = `${base}/${CHUNKS}`;
  const chunks: RawHandler = async (request, response, url) => {
    const name = url.pathname.slice(chunkPrefix.length);
    if (!/^[A-Za-z0-9_-]+\.js$/.test(name)) return sendJson(response, 404, { error: `not found: ${request.method} ${url.pathname}` });
    return answer(request, response, CHUNKS + name);
  };

  const routes = new Map<string, RawHandler>([
    [path, serve('')],
    [`${base}/page/app.js`, serve('page/app.js')],
    [`${base}/page/style.css`, serve('page/style.css')],
  ]);
  if (base !== '') routes.set(`${base}/`, serve(''));
  return { routes, prefixes: [{ prefix: chunkPrefix, handler: chunks }], built, path };
}

/** Where the script's chunks are, relative to the page's base. */
const CHUNKS = 'page/assets/';

/**
 * The page loads only its own files (its chunks too) and talks only to this origin (REST and the WebSocket);
 * secp256k1-zkp (Liquid) fetches and compiles the WebAssembly embedded in its chunk as a data: URL; QR codes are inline SVG; downloads are
 * blob: links.
 */
const CSP = [
  "default-src 'none'",
  "script-src 'self' 'wasm-unsafe-eval'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "connect-src 'self' ws: wss: data:",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');
