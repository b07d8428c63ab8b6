import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type PauseAt, takeover, type TakeoverOutcome } from '../../../packages/core/test/support/fileTakeover';
import type { SoakScenario } from '../SoakScenario';

/**
 * Takeovers of a run on a `FileRunStore`: a process that holds the lease and appends in a loop is
 * stopped (SIGSTOP) past its lease, another takes the run over and appends, then the first is continued
 * (SIGCONT). Half the trials stop it at whatever moment, half just before a write (after every check):
 * that write then lands after the new holder's fence. The figures are the journals' readability and the
 * runs' outcomes: a readable journal holding only the new holder's records after its fence, the paused
 * process refused, and its late write skipped as stale.
 */
export const fileTakeover: SoakScenario = {
  name: 'file-takeover',
  needsRedis: false,
  async run(size, log) {
    const { trials, ttlMs } = size.takeover;
    const where = { script: fileURLToPath(new URL('../../../packages/core/test/support/fileZombie.ts', import.meta.url)), cwd: fileURLToPath(new URL('../../..', import.meta.url)) };
    const directory = mkdtempSync(join(tmpdir(), 'rxagents-soak-takeover-'));
    const outcomes: { pauseAt: PauseAt; outcome: TakeoverOutcome }[] = [];
    try {
      log(`${trials} takeovers, the paused process's lease ${ttlMs} ms; stopped at any moment and just before a write, by turns`);
      for (let trial = 0; trial < trials; trial++) {
        const pauseAt: PauseAt = trial % 2 === 0 ? 'any-moment' : 'before-a-write';
        const outcome = await takeover(directory, `takeover-${trial}`, pauseAt, where, ttlMs);
        outcomes.push({ pauseAt, outcome });
        const late = outcome.zombieTexts.length - outcome.resolved.length;
        log(
          `trial ${trial + 1} (${pauseAt}): ${outcome.readable ? 'readable' : `UNREADABLE (${outcome.error})`}, ${outcome.story ? 'story whole' : 'STORY MIXED'}; ` +
            `paused process ${outcome.ending}, ${outcome.resolved.length} of its appends counted${late > 0 ? ' (and the one in flight, landed before the fence)' : ''}, ${outcome.stale.length} stale appends skipped`,
        );
      }
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
    const count = (test: (each: { pauseAt: PauseAt; outcome: TakeoverOutcome }) => boolean) => outcomes.filter(test).length;
    const readable = count(({ outcome }) => outcome.readable);
    const whole = count(({ outcome }) => outcome.story && outcome.holderTexts.join() === outcome.expectedHolderTexts.join());
    const refused = count(({ outcome }) => outcome.ending === 'RUN_LEASE_LOST');
    const beforeWrite = outcomes.filter(({ pauseAt }) => pauseAt === 'before-a-write');
    const fenced = beforeWrite.filter(({ outcome }) => outcome.stale.length > 0 && !outcome.zombieTexts.includes(outcome.inFlight)).length;
    const stale = outcomes.reduce((sum, { outcome }) => sum + outcome.stale.length, 0);
    return {
      figures: `${readable}/${trials} journals readable, ${whole}/${trials} holding only the new holder's records after its fence, ${refused}/${trials} paused processes refused (RUN_LEASE_LOST); ${fenced}/${beforeWrite.length} writes made after the takeover skipped as stale (${stale} stale appends reported in all)`,
      bound: 'every journal readable and whole, every paused process refused, every write it made after the takeover skipped',
      within: readable === trials && whole === trials && refused === trials && fenced === beforeWrite.length,
    };
  },
};
