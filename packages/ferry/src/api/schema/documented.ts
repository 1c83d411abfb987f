// Routes with their JSON schemas, and the API document built from them. A route added through `documented` is
// validated with the schema it documents; every other route of the router is listed with its path parameters, so
// the document names exactly the routes served.
import type { Handler, Request, Router } from '../http/router.ts';
import { bodyValidator, type JsonSchema } from './validator.ts';

export interface RouteDoc {
  summary: string;
  tags?: string[];
  /** The JSON body the route takes; validated before the handler runs. */
  body?: JsonSchema;
  /** Query parameters (name → schema). */
  query?: Record<string, { schema: JsonSchema; required?: boolean }>;
  /** Status → the answer's schema. */
  responses?: Record<number, JsonSchema>;
  /** The text answered when no branch of the body's oneOf fits. */
  oneOfHint?: string;
  deprecated?: boolean;
}

const docsOf = new WeakMap<Router, Map<string, RouteDoc>>();
const keyOf = (method: string, pattern: string) => `${method} ${pattern}`;

/** Adds a route with its documentation; a body schema is checked first, the handler gets the body typed as B. */
export function documented<B = unknown>(
  router: Router,
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE',
  pattern: string,
  doc: RouteDoc,
  handler: (request: Request, body: B) => ReturnType<Handler>,
): void {
  const docs = docsOf.get(router) ?? new Map<string, RouteDoc>();
  docsOf.set(router, docs);
  docs.set(keyOf(method, pattern), doc);
  const check = doc.body ? bodyValidator<B>(doc.body, doc.oneOfHint) : (body: unknown) => body as B;
  router.add(method, pattern, (request) => handler(request, check(request.body)));
}

const errorSchema: JsonSchema = { type: 'object', required: ['error'], properties: { error: { type: 'string' } } };

function operation(pattern: string, doc: RouteDoc | undefined): Record<string, unknown> {
  const pathParameters = [...pattern.matchAll(/\{([^}]+)\}/g)].map(([, name]) => ({ in: 'path', name, required: true, schema: { type: 'string' } }));
  const queryParameters = Object.entries(doc?.query ?? {}).map(([name, q]) => ({ in: 'query', name, required: q.required ?? false, schema: q.schema }));
  const responses: Record<string, unknown> = {};
  for (const [status, schema] of Object.entries(doc?.responses ?? {})) {
    responses[status] = { description: `${status}`, content: { 'application/json': { schema } } };
  }
  if (responses['200'] === undefined && responses['201'] === undefined) responses['200'] = { description: 'success' };
  responses['400'] = { description: 'the request was refused', content: { 'application/json': { schema: errorSchema } } };
  return {
    summary: doc?.summary ?? `${pattern}`,
    ...(doc?.tags && { tags: doc.tags }),
    ...(doc?.deprecated && { deprecated: true }),
    ...((pathParameters.length > 0 || queryParameters.length > 0) && { parameters: [...pathParameters, ...queryParameters] }),
    ...(doc?.body && { requestBody: { required: true, content: { 'application/json': { schema: doc.body } } } }),
    responses,
  };
}

/** The OpenAPI 3.0 document of every route the router serves, in the order added. */
export function apiDocument(router: Router, info: { title: string; version: string }): Record<string, unknown> {
  const docs = docsOf.get(router) ?? new Map<string, RouteDoc>();
  const paths: Record<string, Record<string, unknown>> = {};
  for (const { method, pattern } of router.list()) {
    (paths[pattern] ??= {})[method.toLowerCase()] = operation(pattern, docs.get(keyOf(method, pattern)));
  }
  return { openapi: '3.0.3', info, servers: [{ url: '/' }], paths };
}
