import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';
import { canCollect } from './memory';
import type { SoakResult, SoakScenario } from './SoakScenario';
import { type SoakSize, soakSizeOf } from './soakSizes';
import { redisServerMissing } from './soakRedis';
import { callerStall } from './scenarios/callerStall';
import { fileTakeover } from './scenarios/fileTakeover';
import { killedWorker } from './scenarios/killedWorker';
import { lateViewers } from './scenarios/lateViewers';
import { registryStall } from './scenarios/registryStall';
import { stalledViewers } from './scenarios/stalledViewers';

const scenarios: readonly SoakScenario[] = [stalledViewers, lateViewers, callerStall, killedWorker, registryStall, fileTakeover];

/** The line a scenario's process prints its result on, read by the parent process. */
const RESULT_MARK = '@@rxagents-soak-result ';

/** In a scenario's own process: runs it and prints its progress lines, then its result. */
async function runChild(name: string, size: SoakSize): Promise<void> {
  const scenario = scenarios.find((candidate) => candidate.name === name);
  if (scenario === undefined) throw new Error(`unknown scenario ${name}`);
  // Sockets, Redis connections and timers of the scenario are not worth closing one by one: the process is done.
  try {
    const result = await scenario.run(size, (line) => console.log(`  ${line}`));
    console.log(RESULT_MARK + JSON.stringify(result));
    process.exit(0);
  } catch (error) {
    console.error(error);
    process.exit(1);
  }
}

/** The process group of the scenario running now (its workers and redis-server are in it too). */
let runningGroup: number | undefined;

/** Kills the running scenario's process group: the scenario, its worker processes and its redis-server. */
function killRunningGroup(): void {
  if (runningGroup === undefined) return;
  try {
    process.kill(-runningGroup, 'SIGKILL');
  } catch {
    // already gone
  }
}

/**
 * Runs one scenario in a fresh Node process (same flags: `--expose-gc`, the tsx loader), so that one
 * scenario's heap does not count in another's. The process leads a process group of its own, so that
 * past the size's cap (or on Ctrl-C) it is killed with everything it started.
 */
function runInProcess(name: string, size: SoakSize): Promise<SoakResult> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url)], {
      env: { ...process.env, RXAGENTS_SOAK_SCENARIO: name, SOAK_SIZE: size.name },
      stdio: ['ignore', 'pipe', 'inherit'],
      detached: true,
    });
    runningGroup = child.pid;
    let result: SoakResult | undefined;
    const cap = setTimeout(killRunningGroup, size.scenarioCapMs);
    createInterface({ input: child.stdout }).on('line', (line) => {
      if (line.startsWith(RESULT_MARK)) result = JSON.parse(line.slice(RESULT_MARK.length)) as SoakResult;
      else console.log(line);
    });
    child.on('close', (code, signal) => {
      clearTimeout(cap);
      runningGroup = undefined;
      if (result !== undefined) resolve(result);
      else {
        const why = signal === 'SIGKILL' ? `killed after its cap of ${size.scenarioCapMs / 1000} s` : `exited with ${String(code ?? signal)}`;
        resolve({ figures: `no figures: the scenario's process ${why}`, bound: 'a result', within: false });
      }
    });
  });
}

async function main(): Promise<void> {
  const args = process.argv.slice(2).filter((arg) => arg !== '--');
  const size = soakSizeOf(args, process.env);
  const child = process.env.RXAGENTS_SOAK_SCENARIO;
  if (child !== undefined) return runChild(child, size);
  const wanted = args.filter((arg) => !arg.startsWith('--'));
  const unknown = wanted.filter((name) => !scenarios.some((scenario) => scenario.name === name));
  if (unknown.length > 0) {
    console.error(`Unknown scenario: ${unknown.join(', ')}. Scenarios: ${scenarios.map((scenario) => scenario.name).join(', ')}`);
    process.exitCode = 2;
    return;
  }
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      killRunningGroup();
      process.exit(130);
    });
  }
  if (!canCollect) console.log('warning: run with node --expose-gc (as `pnpm soak` does): without it the memory figures include garbage');
  const selected = wanted.length === 0 ? scenarios : scenarios.filter((scenario) => wanted.includes(scenario.name));
  console.log(`pnpm soak, ${size.name} size: ${selected.map((scenario) => scenario.name).join(', ')}; each in a fresh process, loopback only`);
  const started = process.hrtime.bigint();
  const summary: string[] = [];
  let outside = 0;
  const missing = redisServerMissing();
  const skipped = missing === undefined ? [] : selected.filter((scenario) => scenario.needsRedis);
  if (skipped.length > 0) {
    const line = `skipped the Redis scenarios (${skipped.map((scenario) => scenario.name).join(', ')}): ${missing}`;
    console.log(line);
    summary.push(line);
  }
  for (const scenario of selected.filter((candidate) => !skipped.includes(candidate))) {
    console.log(`\n== ${scenario.name} ==`);
    const scenarioStarted = process.hrtime.bigint();
    const result = await runInProcess(scenario.name, size);
    const scenarioSeconds = Number(process.hrtime.bigint() - scenarioStarted) / 1e9;
    const verdict = result.within === 'skipped' ? 'SKIPPED' : result.within ? 'within bound' : 'OUTSIDE BOUND';
    if (result.within === false) outside++;
    const line = `${scenario.name}: ${result.figures} | bound: ${result.bound} | ${verdict} (${scenarioSeconds.toFixed(1)} s)`;
    console.log(line);
    summary.push(line);
  }
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  console.log(`\n== summary (${size.name} size, ${seconds.toFixed(1)} s) ==`);
  for (const line of summary) console.log(line);
  if (outside > 0) {
    console.log(`${outside} of ${selected.length} scenarios outside their bound`);
    process.exitCode = 1;
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
