import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';

const root = join(__dirname, '../../../..');
const test = join(__dirname, '..');

/** Starts `node --import tsx <script>` from the repository root and resolves once it printed "ready". */
export async function spawnProcess(script: string, env: Record<string, string>): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(test, script)], { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((resolve, reject) => {
    let output = '';
    child.stdout?.on('data', (data: Buffer) => {
      output += data.toString();
      if (output.includes('ready')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`${script} exited with ${String(code)} before it was ready`)));
  });
  return child;
}

/** Kills `child` with `signal` and resolves once it exited. */
export async function killProcess(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill(signal);
  await exited;
}
