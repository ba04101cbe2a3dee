import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import ajvFormats from 'ajv-formats';

/**
 * Test support: checks that an HTTP response is one the OpenAPI document describes, so that any test
 * that drives the API can also hold it to its published contract.
 *
 * @example
 * const document = openApiDocument();
 * const req = request(app).get('/api/v1/agents').set('x-api-key', key);
 * checkHttpResponse(document, req.method, req.url, await req);
 */

type Json = Record<string, unknown>;

/** What {@link checkResponse} looks at besides the status and the body. */
export interface ResponseDetails {
  /** The `Content-Type` of the response; its parameters (`charset`) are ignored. */
  contentType?: string;
  /** The response headers, names in any case. Required documented headers must be there. */
  headers?: Record<string, string | string[] | number | undefined>;
  /** The mount point to take off a concrete URL (default: the path of the document's first server). */
  basePath?: string;
}

/**
 * Answers the API gives outside the operations it lists: before a route is found (a missing key, too
 * many failed authentications, a body that is not JSON or too large, malformed JSON) or when none is
 * (an unknown path: 404; a listed path with a method it does not list: 405, or 404 on a public path
 * such as `/openapi.json`). They are checked against these shared responses of `components.responses`.
 */
const UNLISTED: Record<number, string> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  404: 'NotFound',
  405: 'MethodNotAllowed',
  413: 'PayloadTooLarge',
  415: 'UnsupportedMediaType',
  429: 'TooManyRequests',
  500: 'InternalError',
};

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

interface Compiled {
  ajv: Ajv2020;
  validators: Map<string, ValidateFunction>;
}

const compiled = new WeakMap<object, Compiled>();

/** Ajv over the document's schemas, `#/components/schemas/X` read as `#/$defs/X`. */
function compilerFor(document: Json): Compiled {
  let entry = compiled.get(document);
  if (!entry) {
    const ajv = new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true, strictRequired: false });
    // ajv-formats is CommonJS: its plugin is the `default` of the module as Node ESM imports it.
    ajvFormats.default(ajv);
    // Keywords of the OpenAPI 3.1 schema dialect that are annotations only.
    ajv.addVocabulary(['example', 'discriminator', 'xml', 'externalDocs']);
    const schemas = (document.components as Json | undefined)?.schemas ?? {};
    ajv.addSchema({ $id: 'urn:agenthost:openapi-components', $defs: rewriteRefs(schemas) });
    entry = { ajv, validators: new Map() };
    compiled.set(document, entry);
  }
  return entry;
}

function rewriteRefs(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(rewriteRefs);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, v]) => [
      key,
      key === '$ref' && typeof v === 'string' && v.startsWith('#/components/schemas/')
        ? `urn:agenthost:openapi-components#/$defs/${v.slice('#/components/schemas/'.length)}`
        : rewriteRefs(v),
    ]),
  );
}

function validatorFor(document: Json, schema: unknown): ValidateFunction {
  const { ajv, validators } = compilerFor(document);
  const key = JSON.stringify(schema);
  let validate = validators.get(key);
  if (!validate) {
    validate = ajv.compile(rewriteRefs(schema) as object);
    validators.set(key, validate);
  }
  return validate;
}

/** Follows a local `$ref` (`#/components/...`). */
function resolve(document: Json, value: unknown): Json {
  let current = value as Json;
  for (let hops = 0; typeof current?.$ref === 'string' && hops < 10; hops++) {
    const pointer = current.$ref as string;
    if (!pointer.startsWith('#/'))
      throw new Error(`openapi-conformance: only local references are followed, got ${pointer}`);
    current = pointer
      .slice(2)
      .split('/')
      .map((part) => part.replaceAll('~1', '/').replaceAll('~0', '~'))
      .reduce<Json>((node, part) => {
        const next = node?.[part];
        if (next === undefined) throw new Error(`openapi-conformance: the document has no ${pointer}`);
        return next as Json;
      }, document);
  }
  return current;
}

function describeValue(value: unknown): string {
  const text = typeof value === 'string' ? JSON.stringify(value) : (JSON.stringify(value) ?? String(value));
  return text.length > 600 ? `${text.slice(0, 600)}...` : text;
}

function schemaErrors(document: Json, schema: unknown, value: unknown): string | null {
  const validate = validatorFor(document, schema);
  if (validate(value)) return null;
  return (validate.errors ?? [])
    .map((e) => `${e.instancePath || '(root)'} ${e.message}${e.params ? ` ${JSON.stringify(e.params)}` : ''}`)
    .join('; ');
}

/** The server path prefix: `/api/v1` of `/api/v1` or `https://host/api/v1`. */
function serverPath(document: Json): string {
  const url = ((document.servers as { url?: string }[] | undefined)?.[0]?.url ?? '').trim();
  const path = /^[a-z][a-z0-9+.-]*:\/\//i.test(url) ? new URL(url).pathname : url;
  return path.replace(/\/+$/, '');
}

/**
 * The document's path template for a path template or a concrete URL (with or without origin and
 * query), or `null` when none matches. `basePath` is the mount point to take off (default: the path
 * of the document's first server).
 */
export function matchPath(
  document: Record<string, unknown>,
  pathTemplateOrUrl: string,
  basePath?: string,
): string | null {
  const paths = Object.keys((document.paths as Json | undefined) ?? {});
  if (paths.includes(pathTemplateOrUrl)) return pathTemplateOrUrl;
  let path = pathTemplateOrUrl.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/]*/i, '').replace(/[?#].*$/, '');
  const base = basePath ?? serverPath(document);
  if (base && (path === base || path.startsWith(`${base}/`))) path = path.slice(base.length) || '/';
  if (path.length > 1) path = path.replace(/\/+$/, '');
  // Literal paths win over templated ones, as OpenAPI says.
  const ranked = [...paths].sort((a, b) => (a.match(/\{/g)?.length ?? 0) - (b.match(/\{/g)?.length ?? 0));
  for (const template of ranked) {
    const pattern = new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^/}]+\}/g, '[^/]+')}$`);
    if (pattern.test(path)) return template;
  }
  return null;
}

function header(headers: ResponseDetails['headers'], name: string): string | undefined {
  if (!headers) return undefined;
  const found = Object.entries(headers).find(([key]) => key.toLowerCase() === name.toLowerCase())?.[1];
  return Array.isArray(found) ? found.join(', ') : found === undefined ? undefined : String(found);
}

/** Parses a server-sent event stream into its events; comment lines are skipped. */
export function parseEventStream(text: string): { event: string; data: unknown }[] {
  return text
    .split(/\r?\n\r?\n/)
    .map((block) => block.split(/\r?\n/).filter((line) => line !== '' && !line.startsWith(':')))
    .filter((lines) => lines.length > 0)
    .map((lines) => {
      const field = (name: string) =>
        lines.filter((l) => l.startsWith(`${name}:`)).map((l) => l.slice(name.length + 1).replace(/^ /, ''));
      const data = field('data').join('\n');
      return { event: field('event')[0] ?? 'message', data: JSON.parse(data) as unknown };
    });
}

/**
 * Throws, with a message naming the operation and what differs, unless the document describes this
 * response: the status is listed for the operation (see {@link UNLISTED} for answers outside the
 * listed operations), the content type is one it lists (or there is no body when it lists none), the
 * body matches that content's schema, and every required header is there with a valid value. A
 * server-sent event stream is checked event by event against the media type's
 * `x-agenthost-events`. A 405's `Allow` header must name exactly the methods the document lists
 * for the path (and `HEAD` with `GET`).
 *
 * @param method The HTTP method, in any case.
 * @param pathTemplateOrUrl A path template of the document (`/agents/{agentId}`) or a concrete URL
 *   (`/api/v1/agents/agt_1?limit=2`, with or without origin); the mount point is taken off.
 * @param body The parsed JSON body, or the text of a non-JSON body.
 */
export function checkResponse(
  document: Record<string, unknown>,
  method: string,
  pathTemplateOrUrl: string,
  status: number,
  body: unknown,
  details: ResponseDetails = {},
): void {
  const verb = method.toLowerCase();
  const template = matchPath(document, pathTemplateOrUrl, details.basePath);
  const pathItem = template ? resolve(document, (document.paths as Json)[template]) : undefined;
  // Express answers HEAD with the GET route, without the body.
  const head = verb === 'head' && !pathItem?.head;
  const operation = (head ? pathItem?.get : pathItem?.[verb]) as Json | undefined;
  const where = `${method.toUpperCase()} ${template ?? pathTemplateOrUrl}`;
  const fail = (message: string): never => {
    throw new Error(`OpenAPI conformance: ${where} answered ${status}: ${message}`);
  };
  const response = operation
    ? listedResponse(document, operation, status, fail)
    : unlistedResponse(document, { template, pathItem, status, headers: details.headers }, fail);
  checkHeaders(document, response, details.headers, fail);
  checkBody(document, response, body, { ...details, head }, fail);
}

type Fail = (message: string) => never;

/** The response the operation lists for `status`. */
function listedResponse(document: Json, operation: Json, status: number, fail: Fail): Json {
  const listed = (operation.responses ?? {}) as Json;
  const found = listed[String(status)] ?? listed[`${String(status)[0]}XX`] ?? listed.default;
  if (!found) fail(`the document lists only ${Object.keys(listed).join(', ')} for this operation`);
  return resolve(document, found);
}

/** The shared response of an answer outside the listed operations; a 405's `Allow` must match the path. */
function unlistedResponse(
  document: Json,
  answer: { template: string | null; pathItem: Json | undefined; status: number; headers: ResponseDetails['headers'] },
  fail: Fail,
): Json {
  const { template, pathItem, status } = answer;
  const shared = UNLISTED[status];
  const expected = !template
    ? 'an unknown path'
    : `a method the path does not list (${METHODS.filter((m) => pathItem?.[m]).join(', ')})`;
  // An unknown path cannot answer 405; a listed path with another method answers 405 (or an earlier
  // refusal), never 404.
  const impossible = !template ? 405 : 404;
  if (!shared || status === impossible)
    fail(
      `${expected} may only answer ${Object.keys(UNLISTED)
        .filter((s) => Number(s) !== impossible)
        .join(', ')}`,
    );
  if (status === 405) {
    const allowed = METHODS.filter((m) => pathItem?.[m]).map((m) => m.toUpperCase());
    if (allowed.includes('GET') && !allowed.includes('HEAD')) allowed.push('HEAD');
    const got = (header(answer.headers, 'allow') ?? '')
      .split(',')
      .map((m) => m.trim().toUpperCase())
      .filter(Boolean);
    if ([...got].sort().join(',') !== [...allowed].sort().join(','))
      fail(`Allow is "${got.join(', ')}" but the document lists ${allowed.join(', ')}`);
  }
  return resolve(document, ((document.components as Json).responses as Json)[shared!]);
}

/** Every header the response lists is valid when sent, and there when required (if headers were given). */
function checkHeaders(document: Json, response: Json, headers: ResponseDetails['headers'], fail: Fail): void {
  for (const [name, raw] of Object.entries((response.headers ?? {}) as Json)) {
    const spec = resolve(document, raw);
    const value = header(headers, name);
    if (value === undefined) {
      if (spec.required === true && headers) fail(`the required header ${name} is missing`);
      continue;
    }
    const schema = (spec.schema ?? {}) as Json;
    const numeric = (schema.type === 'integer' || schema.type === 'number') && /^-?\d+(\.\d+)?$/.test(value);
    const problem = schemaErrors(document, schema, numeric ? Number(value) : value);
    if (problem) fail(`header ${name}: ${describeValue(value)}: ${problem}`);
  }
}

/** The body is of a listed content type and matches its schema; an event stream, event by event. */
function checkBody(
  document: Json,
  response: Json,
  body: unknown,
  details: ResponseDetails & { head: boolean },
  fail: Fail,
): void {
  const content = response.content as Record<string, Json> | undefined;
  // Clients give an empty body as undefined, '' or {}.
  const empty =
    body === undefined || body === '' || (typeof body === 'object' && body !== null && Object.keys(body).length === 0);
  if (details.head || !content || Object.keys(content).length === 0) {
    if (!empty) fail(details.head ? 'a HEAD answer has no body' : 'the document lists no body');
    return;
  }
  if (details.contentType === undefined && details.headers === undefined && Object.keys(content).length > 1) {
    fail(`give the content type: the document lists ${Object.keys(content).join(', ')}`);
  }
  const contentType = (details.contentType ?? header(details.headers, 'content-type') ?? Object.keys(content)[0]!)
    .split(';')[0]!
    .trim()
    .toLowerCase();
  const media = content[contentType];
  if (!media) fail(`content type ${contentType} is not one the document lists (${Object.keys(content).join(', ')})`);
  const problem = schemaErrors(document, media!.schema ?? {}, body);
  if (problem) fail(`the ${contentType} body does not match the document: ${problem}; body: ${describeValue(body)}`);
  const events = media!['x-agenthost-events'] as Record<string, unknown> | undefined;
  if (events && typeof body === 'string') checkEvents(document, events, body, fail);
}

function checkEvents(document: Json, events: Record<string, unknown>, body: string, fail: Fail): void {
  let frames: ReturnType<typeof parseEventStream> = [];
  try {
    frames = parseEventStream(body);
  } catch (error) {
    fail(`the event stream is not one JSON object per event: ${(error as Error).message}`);
  }
  for (const [index, { event, data }] of frames.entries()) {
    if (!events[event])
      fail(`event ${index} is "${event}", which the document does not list (${Object.keys(events).join(', ')})`);
    const eventProblem = schemaErrors(document, events[event], data);
    if (eventProblem)
      fail(
        `the data of event ${index} ("${event}") does not match the document: ${eventProblem}; data: ${describeValue(data)}`,
      );
  }
}

/** A response as supertest (or a similar client) gives it. */
export interface HttpResponseLike {
  status: number;
  headers: Record<string, string | string[] | number | undefined>;
  /** The parsed JSON body. */
  body?: unknown;
  /** The raw body text. */
  text?: string;
}

/**
 * {@link checkResponse} for a whole HTTP response: JSON bodies are read from `body`, others (a
 * server-sent event stream) from `text`.
 */
export function checkHttpResponse(
  document: Record<string, unknown>,
  method: string,
  url: string,
  response: HttpResponseLike,
  basePath?: string,
): void {
  const contentType = header(response.headers, 'content-type');
  const isJson = contentType !== undefined && /^application\/(?:[\w.+-]+\+)?json\b/i.test(contentType);
  const body = isJson ? response.body : contentType === undefined ? undefined : response.text;
  checkResponse(document, method, url, response.status, body, {
    headers: response.headers,
    ...(contentType !== undefined && { contentType }),
    ...(basePath !== undefined && { basePath }),
  });
}
