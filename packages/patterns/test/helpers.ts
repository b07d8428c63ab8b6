import { scriptedAgent, type ScriptedAgent } from '@rxagents/testing';
import { TestScheduler } from 'rxjs/testing';

/** A TestScheduler that asserts with Jest's deep equality. */
export function testScheduler(): TestScheduler {
  return new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
}

/** A debater that answers `<id> r<round>` after `delay` virtual ms (the round read from the prompt). */
export function debater(id: string, delay = 10, say: (round: number) => string = (round) => `${id} r${round}`): ScriptedAgent {
  return scriptedAgent(id, (input) => ({ reply: say(Number(/Round (\d+)/.exec(input)?.[1] ?? 0)), delay }));
}

/** Pending (not closed) scheduled actions of a TestScheduler: timers that would still fire. */
export function pendingActions(scheduler: TestScheduler): number {
  return (scheduler.actions as Array<{ closed: boolean }>).filter((action) => !action.closed).length;
}

export { countLargeArrayCopies } from '../../../test/support/countLargeArrayCopies';
