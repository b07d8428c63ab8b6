import { spawn } from 'node:child_process';
import { join } from 'node:path';

/**
 * Starts the process that writes a live run's journal under its lease (see journalWriter.ts):
 * `started` resolves once it holds the lease and wrote its first append, `done` once it wrote them all.
 * With `pause`, it stops once it wrote `pause.at` records (`paused`) until `pause.file` exists.
 */
export function startJournalWriter(
  directory: string,
  runId: string,
  records: number,
  perAppend: number,
  pause?: { readonly at: number; readonly file: string },
): { started: Promise<void>; paused: Promise<void>; done: Promise<void> } {
  const child = spawn(process.execPath, ['--import', 'tsx', join(__dirname, 'journalWriter.ts')], {
    cwd: join(__dirname, '../../../..'),
    env: { ...process.env, DIRECTORY: directory, RUN_ID: runId, RECORDS: String(records), PER_APPEND: String(perAppend), ...(pause === undefined ? {} : { PAUSE_AT: String(pause.at), PAUSE_FILE: pause.file }) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  child.stdout.on('data', (data: Buffer) => (output += data.toString()));
  const printed = (line: string) =>
    new Promise<void>((resolve, reject) => {
      const check = (): void => {
        if (output.includes(`${line}\n`)) resolve();
        else if (child.exitCode !== null) reject(new Error(`the writer exited before printing ${line}`));
        else setTimeout(check, 5);
      };
      check();
    });
  return { started: printed('started'), paused: pause === undefined ? Promise.resolve() : printed('paused'), done: printed('done') };
}
