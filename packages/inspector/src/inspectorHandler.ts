import * as z from 'zod';
import { parseConfig, type RunStatus, type RunSummary } from '@rxagents/core';
import { createRunRegistry } from '@rxagents/web';
import { bundleInspectorPage } from './internal/bundleInspectorPage';
import { inspectorHtml } from './internal/inspectorHtml';
import { InspectorHandlerOptionsSchema, type InspectorHandlerOptions } from './InspectorHandlerOptions';

/**
 * The inspector's routes as one fetch-style handler (made by {@link inspectorHandler}), with `close()`
 * to end its journal readers.
 *
 * @example
 * ```ts
 * import type { InspectorHandler } from '@rxagents/inspector';
 *
 * const serve = (handler: InspectorHandler, request: Request): Promise<Response> => handler(request);
 * console.log(typeof serve); // function
 * ```
 */
export interface InspectorHandler {
  (request: Request): Promise<Response>;
  /** Ends every journal stream it serves (their pages stop updating) and stops reading the store. */
  close(): void;
}

const ListQuerySchema = z.strictObject({ status: z.enum(['running', 'succeeded', 'failed']).optional() });
const RunIdSchema = z.string().min(1).max(256);

const json = (status: number, body: unknown): Response =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' } });
const text = (status: number, body: string, type = 'text/plain'): Response =>
  new Response(body, { status, headers: { 'content-type': `${type}; charset=utf-8`, 'cache-control': 'no-store' } });

/**
 * Serves the run inspector: a React page that lists the runs of a run store or a run registry (or both) and shows one as a tree of
 * calls, a timeline with a lane per agent, the selected call's text, usage and error, and the channel
 * metrics over time; live while the run runs, and with a time cursor to see a run as it was at any moment.
 *
 * @remarks
 * The page is bundled by esbuild once, when this resolves. Routes, under `basePath`: `GET` the page
 * itself, `GET inspector.js`, `GET api/runs` (the run summaries of the store, then of the registry's runs it does not list, newest first, at most
 * `maxListed`; `?status=running|succeeded|failed` filters, anything else is `400`), and `GET
 * api/runs/<runId>/events`: the run's events (`503` from `api/runs` when the store cannot list) as Server-Sent Events, from `registry.response` when the
 * registry holds the run (live from its memory), else from the store's journal (`404` without a store), read again every
 * `pollMs` while the run runs (a run another process runs shows live too). Any other path is `404`, any
 * other method `405`. The inspector lists every run of the store to whoever reaches it: serve it on
 * loopback (as `pnpm inspect` does) or behind your own authentication.
 *
 * @param options - The store, an optional registry, journal polling, error exposure, mount path and list size.
 * @returns The handler, once the page is bundled.
 * @throws `ConfigError` for a bad option.
 *
 * @example
 * ```ts
 * // no-run: the handler bundles its page with esbuild, which the examples' own bundler cannot bundle; test/inspectorGuide.spec.ts runs it as written
 * import { MemoryRunStore } from '@rxagents/core';
 * import { inspectorHandler } from '@rxagents/inspector';
 *
 * const store = new MemoryRunStore();
 * await store.append('r1', [{ type: 'run-start', runId: 'r1', callId: 'run', parentCallId: null, at: 0, name: 'story', input: 'go' }]);
 * const inspector = await inspectorHandler({ store });
 * const listed = await inspector(new Request('http://localhost/api/runs'));
 * console.log((await listed.json()).runs[0].name); // story
 * inspector.close();
 * ```
 */
export async function inspectorHandler(options: InspectorHandlerOptions): Promise<InspectorHandler> {
  const { store, registry, pollMs, exposeError, basePath, maxListed } = parseConfig(InspectorHandlerOptionsSchema, options, 'inspectorHandler options');
  // A durable registry that resumes nothing (no `runs`): it only serves journals, live while they grow.
  const journals = store === undefined ? undefined : createRunRegistry({ store, pollMs, ...(exposeError === undefined ? {} : { exposeError }) });
  const script = await bundleInspectorPage();

  const events = async (runId: string, request: Request): Promise<Response> => {
    const held = registry === undefined ? undefined : await registry.response(runId, request);
    if (held !== undefined && (held.status !== 404 || journals === undefined)) return held;
    return journals === undefined ? text(404, 'Unknown run') : journals.response(runId, request);
  };

  const list = async (url: URL): Promise<Response> => {
    // Read by name (no object made of the query's own keys): `status` once at most, nothing else.
    const params = url.searchParams;
    const unknown = [...params.keys()].some((key) => key !== 'status') || params.getAll('status').length > 1;
    const query = ListQuerySchema.safeParse(params.has('status') ? { status: params.get('status') } : {});
    if (unknown || !query.success) return json(400, { error: 'the query may only be ?status=running|succeeded|failed' });
    const status: RunStatus | undefined = query.data.status;
    const filter = status === undefined ? {} : { status };
    let runs: RunSummary[];
    try {
      const stored = store === undefined ? [] : await store.list(filter);
      const known = new Set(stored.map((summary) => summary.runId));
      const held = registry === undefined ? [] : await registry.list(filter);
      runs = [...stored, ...held.filter((summary) => !known.has(summary.runId))];
    } catch {
      return json(503, { error: 'the run store is unavailable' });
    }
    // Newest first; runs created in the same millisecond keep the store's order, reversed.
    const newest = [...runs].reverse().sort((a, b) => b.createdAt - a.createdAt).slice(0, maxListed);
    return json(200, { runs: newest });
  };

  const handle = async (request: Request): Promise<Response> => {
    const url = new URL(request.url);
    if (!url.pathname.startsWith(basePath)) return text(404, 'Not found');
    const route = url.pathname.slice(basePath.length);
    if (request.method !== 'GET' && request.method !== 'HEAD') return text(405, 'Method not allowed');
    if (route === '') return text(200, inspectorHtml, 'text/html');
    if (route === 'inspector.js') return text(200, script, 'text/javascript');
    if (route === 'api/runs') return list(url);
    const match = /^api\/runs\/([^/]+)\/events$/.exec(route);
    if (match === null) return text(404, 'Not found');
    let decoded: string;
    try {
      decoded = decodeURIComponent(match[1] as string);
    } catch {
      return text(400, 'Bad run id');
    }
    const runId = RunIdSchema.safeParse(decoded);
    return runId.success ? events(runId.data, request) : text(400, 'Bad run id');
  };
  return Object.assign(handle, { close: () => journals?.close() });
}
