import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import * as z from 'zod';
import { MemoryRunStore, type RunStore } from '@rxagents/core';
import { FileRunStore } from '@rxagents/core/file-store';
import { inspectorHandler, type InspectorHandler } from '@rxagents/inspector';
import { toWebRequest, writeToNodeResponse } from '@rxagents/web';
import { choreographyEvents, debateEvents, failedEvents, handoffEvents, journal, resumedEvents } from './inspectorRuns';

// `pnpm inspect [store-dir] [--port 4400]`: the run inspector on http://127.0.0.1:<port>/ for the runs
// of a FileRunStore directory (the web demo's `storeDir`, or any `new FileRunStore({ directory })`), or,
// without one, for sample runs (a debate, a choreography, a handoff chain and a failed run) it starts.
// It listens on loopback only, and shows errors in full: it is the operator's own view.

const ArgsSchema = z.strictObject({
  storeDir: z.string().min(1).optional(),
  port: z.coerce.number().int().min(0).max(65_535).default(4400),
});

/** The inspector served on loopback; `close` stops it. */
export interface RunningInspector {
  readonly url: string;
  readonly handler: InspectorHandler;
  close(): Promise<void>;
}

/** Serves `handler` on 127.0.0.1:`port` (0: any free port). */
export async function serveInspector(handler: InspectorHandler, port: number): Promise<RunningInspector> {
  const server: Server = createServer((req, res) => {
    handler(toWebRequest(req, res))
      .then((response) => writeToNodeResponse(response, res))
      .catch((error: unknown) => {
        res.statusCode = 500;
        res.end(String(error));
      });
  });
  await new Promise<void>((done) => server.listen(port, '127.0.0.1', done));
  const { port: bound } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${bound}/`,
    handler,
    close: async () => {
      handler.close();
      server.closeAllConnections();
      await new Promise((done) => server.close(done));
    },
  };
}

/** The sample runs, journaled into `store` as they run (the debate and the chain at a readable pace). */
export function startSampleRuns(store: RunStore): void {
  for (const make of [choreographyEvents, failedEvents, handoffEvents, debateEvents, resumedEvents]) void journal(store, make()).done.catch(() => undefined);
}

function parseArgs(argv: readonly string[]): z.infer<typeof ArgsSchema> {
  const positional: string[] = [];
  let port: string | undefined;
  for (let index = 0; index < argv.length; index++) {
    const arg = argv[index] as string;
    if (arg === '--port') port = argv[++index];
    else if (arg !== '--') positional.push(arg);
  }
  if (positional.length > 1) throw new Error('Usage: pnpm inspect [store-dir] [--port 4400]');
  const parsed = ArgsSchema.safeParse({ storeDir: positional[0], port });
  if (!parsed.success) throw new Error('--port must be an integer from 0 to 65535 (0: any free port)');
  return parsed.data;
}

async function main(): Promise<void> {
  const { storeDir, port } = parseArgs(process.argv.slice(2));
  const store = storeDir === undefined ? new MemoryRunStore() : new FileRunStore({ directory: resolve(storeDir) });
  const handler = await inspectorHandler({ store, exposeError: (error) => error });
  if (storeDir === undefined) startSampleRuns(store);
  const running = await serveInspector(handler, port);
  console.log(`Run inspector on ${running.url} (${storeDir === undefined ? 'sample runs' : `runs of ${resolve(storeDir)}`}); Ctrl-C stops it`);
  process.once('SIGINT', () => void running.close());
}

if (process.argv[1] !== undefined && /inspect\.ts$/.test(process.argv[1])) {
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exitCode = 1;
  });
}
