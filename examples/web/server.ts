import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FileRunStore } from '@rxagents/core/file-store';
import { asyncScheduler, finalize, type SchedulerLike, type Subscription } from 'rxjs';
import { inspectorHandler } from '@rxagents/inspector';
import { createRunRegistry, humanAgent, RunRegistryFullError, toWebRequest, writeToNodeResponse } from '@rxagents/web';
import { bundlePage } from './bundlePage';
import { demoRun, StartRunSchema } from './demoRuns';
import { defaultCustomer, defaultDestination, interruptRunNames, interruptRuns } from './interruptRuns';
import { readJson } from './readJson';
import { AgentCalls, type AgentCallRecord } from './watchedAgent';

/** The longest body `POST /api/runs` reads: its JSON (a scene, a topic of at most 500 characters) is far shorter. */
const MAX_START_BODY_BYTES = 16 * 1_024;
const START_BODY_SHAPE = 'The body must be JSON: { "scene": "debate" | "article" | "approval" | "input", "topic"?: string, "human"?: boolean, "wordMs"?: number }';

/** Options of {@link startWebDemo}. */
export interface WebDemoOptions {
  /** The `examples/web` folder (where `page/` is). */
  readonly webDir: string;
  /** The port on 127.0.0.1; 0 (the default) picks a free one. */
  readonly port?: number;
  /**
   * How long a run waits for a viewer after its last one left before it is cancelled, in ms: long
   * enough for a reload to come back, short enough that a closed tab stops its agents soon. Default 5,000.
   */
  readonly viewerGraceMs?: number;
  /** The clock of the grace period and of the run registry. Default `asyncScheduler`. */
  readonly scheduler?: SchedulerLike;
  /**
   * The directory of the file run store that keeps the runs waiting for a person (approval, input): a
   * server started again on the same directory resumes them. Default: a new temporary directory,
   * removed by `close()`.
   */
  readonly storeDir?: string;
  /**
   * How long a durable run's lease lasts unless renewed, in ms: after a crash, another server takes the
   * run over once it lapsed. Default 5,000 (a restarted demo picks its runs up within seconds).
   */
  readonly leaseTtlMs?: number;
}

/** The running demo server. */
export interface WebDemo {
  /** Where the page is, for example `http://127.0.0.1:5173/`. */
  readonly url: string;
  /** The agent calls of a debate or choreography run as the server saw them (what Stop and a closed tab must abort). */
  agentCalls(runId: string): readonly AgentCallRecord[];
  /** Whether the debate or choreography run is still running on the server. */
  isRunning(runId: string): boolean;
  /** Cancels every run and stops serving. */
  close(): Promise<void>;
}

interface DemoRunState {
  readonly calls: AgentCalls;
  viewers: number;
  finished: boolean;
  grace?: Subscription;
}

/**
 * Serves the demo page and its API on 127.0.0.1 from Node's `http`, over the standard handlers of
 * `@rxagents/web`:
 *
 * - `GET /` the page, `GET /app.js` its script (bundled by esbuild at start);
 * - `POST /api/runs` `{ scene, topic?, human?, wordMs? }` starts a run in the run registry: `{ runId }`
 *   (`approval` and `input` start durable runs, journaled in the file store of `storeDir`);
 * - `GET /api/runs/:runId/events` watches it (Server-Sent Events, resumable with `Last-Event-ID`);
 * - `POST /api/runs/:runId/cancel` stops it: every agent still running is aborted;
 * - `POST /api/runs/:runId/answers` `{ interruptId, answer }` answers a question the run asked (an
 *   approval, an input, or the debate's person when they joined): the question's id, as its `interrupt`
 *   event told the page (`registry.handleAnswer`);
 * - `GET /inspector/` the run inspector on the same registry (`@rxagents/inspector`): every run of the
 *   demo, live, or scrubbed back in time.
 *
 * One person agent serves every run: it asks in the run it is called in, and the registry takes an answer
 * only for a question of the run the route names.
 *
 * Runs outlive their viewers for a grace period (a reload resumes the same run), then are cancelled:
 * closing the tab stops the agents. The runs that wait for a person are durable and wait without a
 * viewer: the server resumes the unfinished ones of its store when it starts, so a question still open
 * when the server was killed is open again under the same id.
 */
export async function startWebDemo(options: WebDemoOptions): Promise<WebDemo> {
  const scheduler = options.scheduler ?? asyncScheduler;
  const viewerGraceMs = options.viewerGraceMs ?? 5_000;
  const [html, script] = await Promise.all([readFile(join(options.webDir, 'page', 'index.html'), 'utf8'), bundlePage(options.webDir)]);
  const storeDir = options.storeDir ?? (await mkdtemp(join(tmpdir(), 'rxagents-demo-web-')));
  const store = new FileRunStore({ directory: storeDir });
  const registry = createRunRegistry({ scheduler, store, runs: interruptRuns, leaseTtlMs: options.leaseTtlMs ?? 5_000 });
  // The run inspector on the same registry, at /inspector/: every run of the demo, live or scrubbed in time.
  const inspector = await inspectorHandler({ registry, basePath: '/inspector/' });
  const runs = new Map<string, DemoRunState>();
  const person = humanAgent('you', { role: 'a person in the debate', prompt: personPrompt });

  const viewerLeft = (runId: string, state: DemoRunState): void => {
    state.viewers -= 1;
    if (state.viewers > 0 || state.finished) return;
    state.grace?.unsubscribe();
    state.grace = scheduler.schedule(() => {
      if (state.viewers === 0) registry.cancel(runId);
    }, viewerGraceMs);
  };

  const startRun = async (request: Request): Promise<Response> => {
    const body = await readJson(request, MAX_START_BODY_BYTES);
    if (body === 'too large') return Response.json({ error: `The body is longer than ${MAX_START_BODY_BYTES} bytes` }, { status: 413 });
    const parsed = StartRunSchema.safeParse(body?.json);
    // The fields at fault, never what was sent (a 400 echoes no input).
    if (!parsed.success) return Response.json({ error: START_BODY_SHAPE, fields: [...new Set(parsed.error.issues.map((issue) => issue.path.join('.') || '(body)'))] }, { status: 400 });
    if (parsed.data.scene === 'approval' || parsed.data.scene === 'input') {
      const input = parsed.data.topic ?? (parsed.data.scene === 'approval' ? defaultCustomer : defaultDestination);
      return startDurable(interruptRunNames[parsed.data.scene], input);
    }
    const scene = parsed.data.scene;
    const human = parsed.data.human && parsed.data.scene === 'debate' ? person : undefined;
    const state: DemoRunState = { calls: new AgentCalls(), viewers: 0, finished: false };
    // `finished` once the run completed, failed or was cancelled.
    const events$ = demoRun({ ...parsed.data, scene }, state.calls, human).pipe(finalize(() => (state.finished = true)));
    // Let go of the runs the registry forgot (finished and expired) before holding a new one.
    for (const known of runs.keys()) if (!registry.has(known)) runs.delete(known);
    let runId: string;
    try {
      ({ runId } = registry.start(events$));
    } catch (error) {
      if (error instanceof RunRegistryFullError) return Response.json({ error: error.message }, { status: 503 });
      throw error;
    }
    runs.set(runId, state);
    // Nobody may ever watch it: the grace period applies from the start.
    state.viewers = 1;
    viewerLeft(runId, state);
    return Response.json({ runId }, { status: 201 });
  };

  /** Starts a durable run by name: it waits for its person without a viewer (no grace period). */
  const startDurable = (name: string, input: string): Response => {
    try {
      return Response.json(registry.start(name, input), { status: 201 });
    } catch (error) {
      if (error instanceof RunRegistryFullError) return Response.json({ error: error.message }, { status: 503 });
      throw error;
    }
  };

  const watchRun = async (runId: string, request: Request, res: ServerResponse): Promise<void> => {
    const state = runs.get(runId);
    const response = await registry.response(runId, request);
    if (state === undefined || response.status !== 200) return writeToNodeResponse(response, res);
    state.viewers += 1;
    state.grace?.unsubscribe();
    try {
      await writeToNodeResponse(response, res);
    } finally {
      viewerLeft(runId, state);
    }
  };

  const route = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const request = toWebRequest(req, res);
    const { pathname } = new URL(request.url);
    const [, api, runsSegment, runId, action] = pathname.split('/');
    if (request.method === 'GET' && (pathname === '/' || pathname === '/index.html')) {
      return writeToNodeResponse(new Response(html, { headers: { 'content-type': 'text/html; charset=utf-8' } }), res);
    }
    if (request.method === 'GET' && pathname === '/app.js') {
      return writeToNodeResponse(new Response(script, { headers: { 'content-type': 'text/javascript; charset=utf-8' } }), res);
    }
    if (pathname.startsWith('/inspector/')) return writeToNodeResponse(await inspector(request), res);
    if (api === 'api' && runsSegment === 'runs') {
      if (request.method === 'POST' && runId === undefined) return writeToNodeResponse(await startRun(request), res);
      if (request.method === 'GET' && runId !== undefined && action === 'events') return watchRun(runId, request, res);
      if (runId !== undefined && action === 'answers') return writeToNodeResponse(await registry.handleAnswer(runId, request), res);
      if (request.method === 'POST' && runId !== undefined && action === 'cancel') {
        const known = registry.has(runId);
        registry.cancel(runId);
        return writeToNodeResponse(new Response(null, { status: known ? 204 : 404 }), res);
      }
    }
    return writeToNodeResponse(new Response('Not found', { status: 404 }), res);
  };

  const server = createServer((req, res) => {
    route(req, res).catch((error: unknown) => {
      console.error(error);
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;
  // Runs a killed server left waiting; one whose lease has not lapsed yet is taken over by its first viewer.
  await registry.resumeAll();

  return {
    url: `http://127.0.0.1:${port}/`,
    agentCalls: (runId) => runs.get(runId)?.calls.list() ?? [],
    isRunning: (runId) => runs.get(runId)?.finished === false,
    close: () =>
      new Promise<void>((resolve) => {
        for (const state of runs.values()) state.grace?.unsubscribe();
        inspector.close();
        registry.close();
        server.closeAllConnections();
        server.close(() => {
          if (options.storeDir !== undefined) resolve();
          else void rm(storeDir, { recursive: true, force: true }).then(resolve, resolve);
        });
      }),
  };
}

/**
 * What a person in the debate is asked: the round's request and the topic ("Round 2: give your
 * contribution. Topic: ..."), without the line that tells a model who it is ("You are you.").
 */
function personPrompt(prompt: string): string {
  const round = (prompt.trim().split('\n').at(-1) ?? prompt).replace(/^You are [^.]*\.\s*/, '');
  const topic = /^Topic: (.*)$/m.exec(prompt)?.[1];
  return topic === undefined ? round : `${round} Topic: ${topic}`;
}
