import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { FileRunStore } from '@rxagents/core/file-store';
import { failedEvents, journal } from '../scripts/inspectorRuns';

// `pnpm inspect [store-dir]`: the run inspector on loopback for a FileRunStore directory.

jest.setTimeout(60_000);

const root = resolve(__dirname, '..');
const tsx = join(root, 'node_modules', '.bin', 'tsx');

/** Starts the CLI; resolves with the URL it prints (bounded by the test's timeout). */
function startCli(args: readonly string[]): { child: ChildProcessWithoutNullStreams; url: Promise<string>; exit: Promise<{ code: number | null; stderr: string }> } {
  const child = spawn(tsx, ['scripts/inspect.ts', ...args], { cwd: root });
  let stdout = '';
  let stderr = '';
  const url = new Promise<string>((found, failed) => {
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      const match = /Run inspector on (http:\/\/127\.0\.0\.1:\d+\/)/.exec(stdout);
      if (match !== null) found(match[1] as string);
    });
    child.once('exit', () => failed(new Error(`the inspector exited: ${stderr}`)));
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exit = new Promise<{ code: number | null; stderr: string }>((ended) => child.once('exit', (code) => ended({ code, stderr })));
  url.catch(() => undefined);
  return { child, url, exit };
}

describe('pnpm inspect', () => {
  let directory: string;

  beforeAll(async () => {
    directory = await mkdtemp(join(tmpdir(), 'rxagents-inspect-'));
  });
  afterAll(async () => {
    await rm(directory, { recursive: true, force: true });
  });

  it('serves the runs of a FileRunStore directory on loopback, their errors in full', async () => {
    const store = new FileRunStore({ directory });
    const run = journal(store, failedEvents());
    await run.done;
    const runId = await run.runId;
    const cli = startCli([directory, '--port', '0']);
    try {
      const url = await cli.url;
      const listed = (await (await fetch(`${url}api/runs`)).json()) as { runs: { runId: string; name: string; status: string }[] };
      expect(listed.runs).toEqual([expect.objectContaining({ runId, name: 'refund', status: 'failed' })]);
      const events = await (await fetch(`${url}api/runs/${runId}/events`)).text();
      expect(events).toContain('The card processor refused the refund');
      expect((await fetch(url)).status).toBe(200);
    } finally {
      cli.child.kill('SIGINT');
      await cli.exit;
    }
  });

  it('refuses a bad port and more than one directory, saying how to call it', async () => {
    const badPort = await startCli([directory, '--port', 'lots']).exit;
    expect(badPort.code).toBe(1);
    expect(badPort.stderr.trim()).toBe('--port must be an integer from 0 to 65535 (0: any free port)');
    const two = await startCli([directory, directory]).exit;
    expect([two.code, two.stderr.trim()]).toEqual([1, 'Usage: pnpm inspect [store-dir] [--port 4400]']);
  });
});
