import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

/** One line a chain child printed: an event (`type`, `callId`, `agentId`), `ready`, or its `outcome`. */
export interface ChildLine {
  readonly type?: string;
  readonly callId?: string;
  readonly agentId?: string;
  readonly ready?: boolean;
  readonly outcome?: 'complete' | 'error';
  readonly name?: string;
  readonly code?: string;
  /** A run-end's outcome. */
  readonly success?: boolean;
  readonly error?: { readonly name: string; readonly code?: string; readonly retryable?: boolean };
}

/** A running chain child process and what it printed so far. */
export interface ChainChild {
  readonly process: ChildProcess;
  readonly lines: ChildLine[];
  /** Resolves with the signal that ended the process (`null` when it exited by itself). */
  readonly exited: Promise<NodeJS.Signals | null>;
  /** Resolves with the first line that `matches` (looking at lines already printed too); rejects if the process exits first. */
  line(matches: (line: ChildLine) => boolean, limitMs?: number): Promise<ChildLine>;
  /** Writes a line to the child's stdin (a child started with `WAIT=1` starts on it). */
  go(): void;
  /** Sends SIGKILL and resolves once the process is gone. */
  kill(): Promise<void>;
}

const root = join(__dirname, '../../../..');

/**
 * Starts `node --import tsx <script>` (a path from the repository root) with `env`; `killWhen`, if given,
 * SIGKILLs it as soon as it prints a matching line, from the line handler itself. With `fileLimitKiB`
 * the process runs under `ulimit -f`: no file it writes can grow past that size.
 */
export function startChainChild(script: string, env: Record<string, string>, killWhen?: (line: ChildLine, lines: readonly ChildLine[]) => boolean, fileLimitKiB?: number): ChainChild {
  const node = [process.execPath, '--import', 'tsx', join(root, script)];
  const [command, ...args] = fileLimitKiB === undefined ? node : ['bash', '-c', `ulimit -f ${fileLimitKiB} && exec "$@"`, 'bash', ...node];
  const child = spawn(command!, args, { cwd: root, env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'inherit'] });
  const lines: ChildLine[] = [];
  const waiters = new Set<() => void>();
  const exited = new Promise<NodeJS.Signals | null>((resolve) => child.once('close', (_code, signal) => resolve(signal)));
  let gone = false;
  void exited.then(() => {
    gone = true;
    for (const wake of waiters) wake();
  });
  createInterface({ input: child.stdout! }).on('line', (text) => {
    const line = JSON.parse(text) as ChildLine;
    lines.push(line);
    if (killWhen?.(line, lines) === true) child.kill('SIGKILL');
    for (const wake of waiters) wake();
  });
  const line = (matches: (line: ChildLine) => boolean, limitMs = 30_000): Promise<ChildLine> =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(() => done(new Error('gave up waiting for a line of the child')), limitMs);
      const done = (failure?: Error, found?: ChildLine): void => {
        clearTimeout(timer);
        waiters.delete(check);
        if (found !== undefined) resolve(found);
        else reject(failure);
      };
      const check = (): void => {
        const found = lines.find(matches);
        if (found !== undefined) done(undefined, found);
        else if (gone) done(new Error(`the child exited without printing the line; it printed ${JSON.stringify(lines.slice(-5))}`));
      };
      waiters.add(check);
      check();
    });
  return {
    process: child,
    lines,
    exited,
    line,
    go: () => child.stdin!.write('go\n'),
    kill: async () => {
      if (!gone) child.kill('SIGKILL');
      await exited;
    },
  };
}

/** Polls `check` every 20 ms until it holds; fails after `limitMs` naming `what`. */
export async function waitUntil(what: string, check: () => boolean | Promise<boolean>, limitMs = 20_000): Promise<void> {
  const deadline = Date.now() + limitMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`gave up waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
