import { createRequire } from 'node:module';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { map, Observable, Subject, switchMap } from 'rxjs';
import * as z from 'zod';
import { askForApproval, askForInput, defineAgent, invoke$, observeRun, type RunContext } from '@rxagents/core';
import { createRunRegistry, toEventStreamResponse, toWebRequest, writeToNodeResponse } from '@rxagents/web';

// The React test page's server, on loopback: the page's bundle, a run registry's routes (events and
// answers), and a route that runs a story per request and cancels it when the request closes. It keeps
// what only the server can see: which event requests opened and closed, which agent calls were aborted.

const root = join(__dirname, '..', '..', '..', '..');
/** What this server uses of esbuild's `build` (esbuild is the examples' dependency; its types are not the root's). */
type Build = (options: Record<string, unknown>) => Promise<{ outputFiles: { text: string }[] }>;
const { build } = createRequire(join(root, 'examples', 'package.json'))('esbuild') as { build: Build };

/** A story whose writer writes what the test says, when it says it. */
export interface Story {
  readonly runId: string;
  /** The writer writes `text` now. */
  say(text: string): void;
  /** The writer's reply ends: the run completes. */
  end(): void;
  /** Whether the writer's call was aborted (its run cancelled). */
  aborted(): boolean;
}

export interface PageServer {
  readonly url: string;
  readonly registry: ReturnType<typeof createRunRegistry>;
  /** Starts a story in the run registry. */
  story(): Story;
  /** Starts a run that asks for a name, then for approval to send an invoice to it. */
  invoice(): string;
  /** The story the `/story` route started for the latest request (a run per request). */
  lastRequestStory(): Story | undefined;
  /** How many event requests for `path` opened, and how many of them closed. */
  requests(path: string): { opened: number; closed: number };
  close(): Promise<void>;
}

function storyBody(): { story: Omit<Story, 'runId'>; body: (run: RunContext) => Observable<string> } {
  const words = new Subject<string>();
  let aborted = false;
  const writer = defineAgent('writer', (_input, { signal }) => {
    signal?.addEventListener('abort', () => (aborted = true), { once: true });
    return words;
  });
  return {
    story: { say: (text) => words.next(text), end: () => words.complete(), aborted: () => aborted },
    body: (run) => invoke$(writer, 'a story', { run }),
  };
}

const invoiceBody = (run: RunContext) =>
  askForInput(run, 'Who gets the invoice?', { schema: z.string().min(2) }).pipe(
    switchMap((name) => askForApproval(run, 'send_invoice', { to: name }, { question: `Send the invoice to ${name}?` }).pipe(map((decision) => (decision.approved ? `sent to ${name}` : 'not sent')))),
  );

async function bundlePage(): Promise<string> {
  const result = await build({
    entryPoints: [join(__dirname, 'page.ts')],
    tsconfig: join(root, 'tsconfig.base.json'),
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    // React's development build: StrictMode mounts every component twice, as in a developer's browser.
    define: { 'process.env.NODE_ENV': '"development"' },
    logLevel: 'silent',
  });
  return result.outputFiles[0]!.text;
}

const html = '<!doctype html><meta charset="utf-8"><title>rxagents react</title><div id="root"></div><script type="module" src="/page.js"></script>';

export async function startPageServer(): Promise<PageServer> {
  const script = await bundlePage();
  const registry = createRunRegistry({ ttlMs: 60_000 });
  const counts = new Map<string, { opened: number; closed: number }>();
  let latest: Story | undefined;

  const server = createServer((req, res) => {
    void (async () => {
      const request = toWebRequest(req, res);
      const { pathname } = new URL(request.url);
      if (pathname === '/') return writeToNodeResponse(new Response(html, { headers: { 'content-type': 'text/html; charset=utf-8' } }), res);
      if (pathname === '/page.js') return writeToNodeResponse(new Response(script, { headers: { 'content-type': 'text/javascript; charset=utf-8' } }), res);
      const [, runs, runId, action] = pathname.split('/');
      const counting = pathname === '/story' || (runs === 'runs' && action === 'events');
      if (counting) {
        const count = counts.get(pathname) ?? { opened: 0, closed: 0 };
        counts.set(pathname, count);
        count.opened++;
        res.once('close', () => count.closed++);
      }
      if (pathname === '/story') {
        const { story, body } = storyBody();
        const events$ = observeRun('story', 'a story', body);
        latest = { runId: 'per-request', ...story };
        // A run per request: the request's signal (aborted when it closes) cancels it.
        return writeToNodeResponse(toEventStreamResponse(events$, { signal: request.signal }), res);
      }
      if (runs === 'runs' && runId !== undefined && action === 'events') return writeToNodeResponse(registry.response(runId, request), res);
      if (runs === 'runs' && runId !== undefined && action === 'answers') return writeToNodeResponse(await registry.handleAnswer(runId, request), res);
      return writeToNodeResponse(new Response('Not found', { status: 404 }), res);
    })().catch((error: unknown) => {
      res.statusCode = 500;
      res.end(String(error));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}/`,
    registry,
    story() {
      const { story, body } = storyBody();
      const { runId } = registry.start('story', 'a story', body);
      return { runId, ...story };
    },
    invoice: () => registry.start('invoice', 'bill ACME', invoiceBody).runId,
    lastRequestStory: () => latest,
    requests: (path) => ({ ...(counts.get(path) ?? { opened: 0, closed: 0 }) }),
    close: async () => {
      registry.close();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
