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

/**
 * Runs `run` and counts how many times an array of at least `minLength` elements was iterated (spread,
 * for-of, Array.from) or sliced meanwhile: how a test sees a run copy a growing list at each step.
 */
export function countLargeArrayCopies(minLength: number, run: () => void): number {
  const proto = Array.prototype as unknown as Record<PropertyKey, unknown>;
  const values = proto[Symbol.iterator] as (this: unknown[]) => Iterator<unknown>;
  const slice = proto['slice'] as (this: unknown[], ...args: unknown[]) => unknown[];
  let copies = 0;
  proto[Symbol.iterator] = function (this: unknown[]) {
    if (this.length >= minLength) copies += 1;
    return values.call(this);
  };
  proto['slice'] = function (this: unknown[], ...args: unknown[]) {
    if (this.length >= minLength) copies += 1;
    return slice.apply(this, args);
  };
  try {
    run();
  } finally {
    proto[Symbol.iterator] = values;
    proto['slice'] = slice;
  }
  return copies;
}
