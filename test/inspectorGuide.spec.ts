import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import { asyncScheduler } from 'rxjs';
import { FileRunStore } from '@rxagents/core/file-store';
import { collectDocBlocks, type DocBlock } from '../scripts/docBlocks';
import { failedEvents, journal } from '../scripts/inspectorRuns';

// The inspector's examples in its guide, its README and its TSDoc, taken as they are written, each run with tsx in
// its own Node process, in its own directory inside the repository (so that `@rxagents/*` resolve to the
// packages' sources through the tsconfig paths, the inspector page's bundle included, and `./runs` is
// that directory's own). The docs' runner (test/docs.run.spec.ts) cannot run them: it bundles every
// block with esbuild, and the inspector bundles its page with esbuild; the servers keep listening too.
// A block that logs must print what its `// ...` comment says; a server must serve the page and the runs
// of its store directory on its port, and be gone once killed.

jest.setTimeout(60_000);

const root = resolve(__dirname, '..');
const MARKER = 'test/inspectorGuide.spec.ts runs it as written';
const blocks = collectDocBlocks(root).filter((block) => block.noRun?.includes(MARKER));
const servers = blocks.filter((block) => block.noRun?.includes('it starts a server that keeps listening'));
const scripts = blocks.filter((block) => !servers.includes(block));
const workDir = join(root, '.tmp', `inspector-guide-${process.pid}`);
const children = new Set<ChildProcess>();

interface Started {
  readonly child: ChildProcess;
  readonly directory: string;
  readonly output: () => { stdout: string; stderr: string };
  readonly exit: Promise<number | null>;
}

/** Writes `block` into its own directory, lets `prepare` fill that directory, then runs the block there with tsx. */
async function start(block: DocBlock, prepare: (directory: string) => Promise<void> = () => Promise.resolve()): Promise<Started> {
  const directory = join(workDir, `${block.file.replace(/\W+/g, '-')}-${block.line}`);
  mkdirSync(directory, { recursive: true });
  writeFileSync(join(directory, 'block.mts'), block.code);
  await prepare(directory);
  const child = spawn(process.execPath, ['--import', 'tsx', 'block.mts'], { cwd: directory, stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  let stdout = '';
  let stderr = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exit = new Promise<number | null>((ended) =>
    child.once('exit', (code) => {
      children.delete(child);
      ended(code);
    }),
  );
  return { child, directory, output: () => ({ stdout, stderr }), exit };
}

/** True when something listens on `port` of 127.0.0.1. */
function taken(port: number): Promise<boolean> {
  return new Promise((answer) => {
    const probe = createServer();
    probe.once('error', () => answer(true));
    probe.listen(port, '127.0.0.1', () => probe.close(() => answer(false)));
  });
}

/** What each `console.log(...)` line of a block says it prints, in its trailing `// ...` comment. */
function expectedOutput(code: string): string[] {
  return code
    .split('\n')
    .filter((line) => line.includes('console.log('))
    .map((line) => {
      const comment = line.lastIndexOf('// ');
      if (comment < 0) throw new Error(`a console.log line says nothing of what it prints: ${line}`);
      return line.slice(comment + 3).trim();
    });
}

/** The port and mount path a server block listens on, as written. */
function whereItListens(block: DocBlock): { port: number; basePath: string } {
  const port = /\.listen\((\d+), '127\.0\.0\.1'\)/.exec(block.code);
  if (port === null) throw new Error(`${block.file}:${block.line} does not listen on a fixed port of 127.0.0.1`);
  return { port: Number(port[1]), basePath: /basePath: '([^']+)'/.exec(block.code)?.[1] ?? '/' };
}

/** Resolves with the first answer of `url`, polling while `server` runs (bounded); rejects if it exits first. */
async function firstAnswer(url: string, server: Started): Promise<Response> {
  let exited = false;
  void server.exit.then(() => (exited = true));
  for (let attempt = 0; attempt < 600; attempt++) {
    if (exited) throw new Error(`the example exited before it answered ${url}:\n${server.output().stderr}`);
    try {
      return await fetch(url);
    } catch {
      await new Promise((retry) => setTimeout(retry, 50));
    }
  }
  throw new Error(`the example never answered ${url}:\n${server.output().stderr}`);
}

afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  await Promise.all([...children].map((child) => new Promise((gone) => child.once('exit', gone))));
  rmSync(workDir, { recursive: true, force: true });
});

describe("the inspector's guide, README and TSDoc examples, as written", () => {
  it('are all found: two servers, two scripts', () => {
    expect(servers.map((block) => block.file).sort()).toEqual(['docs/inspector.md', 'packages/inspector/README.md']);
    expect(scripts.map((block) => block.file).sort()).toEqual(['docs/inspector.md', 'packages/inspector/src/inspectorHandler.ts']);
  });

  describe.each(scripts.map((block) => [`${block.file}:${block.line}`, block] as const))('%s', (_where, block) => {
    it('exits 0, printing what it says it prints', async () => {
      const run = await start(block);
      const code = await run.exit;
      expect({ code, ...run.output() }).toEqual({ code: 0, stdout: `${expectedOutput(block.code).join('\n')}\n`, stderr: '' });
    });
  });

  describe.each(servers.map((block) => [`${block.file}:${block.line}`, block] as const))('%s', (_where, block) => {
    it("serves the inspector page and its store directory's runs on its port, until it is killed", async () => {
      const { port, basePath } = whereItListens(block);
      if (await taken(port)) throw new Error(`Port ${port} of 127.0.0.1 is taken by another process: the example listens there, free it to run this test.`);
      let runId = '';
      // A failed run, journaled into the directory's `./runs` before the example starts.
      const server = await start(block, async (directory) => {
        const stored = journal(new FileRunStore({ directory: join(directory, 'runs') }), failedEvents({ scheduler: asyncScheduler, wordMs: 1 }));
        await stored.done;
        runId = await stored.runId;
      });
      const base = `http://127.0.0.1:${port}${basePath}`;
      try {
        const page = await firstAnswer(base, server);
        expect([page.status, page.headers.get('content-type')]).toEqual([200, 'text/html; charset=utf-8']);
        expect(await page.text()).toContain('<title>rxagents run inspector</title>');
        const script = await fetch(`${base}inspector.js`);
        expect([script.status, (await script.text()).length > 1000]).toEqual([200, true]);
        const listed = (await (await fetch(`${base}api/runs`)).json()) as { runs: { runId: string; name: string; status: string }[] };
        expect(listed.runs).toEqual([expect.objectContaining({ runId, name: 'refund', status: 'failed' })]);
        const events = await (await fetch(`${base}api/runs/${runId}/events`)).text();
        expect(events).toContain('"type":"run-end"');
      } finally {
        server.child.kill('SIGTERM');
        await server.exit;
      }
      expect(await taken(port)).toBe(false);
    });
  });
});
