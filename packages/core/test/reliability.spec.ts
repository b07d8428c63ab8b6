import { TestScheduler } from 'rxjs/testing';
import { asyncScheduler, config, lastValueFrom, NEVER, Observable, VirtualTimeScheduler } from 'rxjs';
import { z } from 'zod';
import {
  AgentError,
  AgentTimeoutError,
  ConfigError,
  configRules,
  defineAgent,
  delayTimer,
  stream,
  lastValue,
  MAX_DELAY_MS,
  parseConfig,
  invoke$,
  scheduleDelay,
} from '@rxagents/core';

const DAY = 86_400_000;

function testScheduler(): TestScheduler {
  return new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
}

function thrown(attempt: () => unknown): ConfigError {
  try {
    attempt();
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('timer-valued options', () => {
  it('refuses a timeout the platform timers cannot wait (30 days fired after a few ms before)', () => {
    const agent = defineAgent('slow', () => NEVER);
    const error = thrown(() => stream(agent, 'x', { timeout: 30 * DAY }));
    expect(error.path).toBe('timeout');
    expect(error.message).toContain('at most 2147483647');
  });

  it('accepts the largest schedulable timeout and fires it then, on virtual time', () => {
    testScheduler().run(({ expectObservable }) => {
      const agent = defineAgent('slow', () => NEVER);
      expectObservable(stream(agent, 'x', { timeout: MAX_DELAY_MS })).toBe(`${MAX_DELAY_MS}ms #`, undefined, new AgentTimeoutError('slow', MAX_DELAY_MS));
    });
  });

  it('takes Infinity as no timeout', () => {
    const scheduler = new VirtualTimeScheduler();
    const agent = defineAgent('slow', () => NEVER);
    let settled = false;
    const subscription = stream(agent, 'x', { timeout: Infinity, scheduler }).subscribe({ error: () => (settled = true), complete: () => (settled = true) });
    scheduler.flush();
    expect(settled).toBe(false);
    expect(scheduler.actions).toHaveLength(0);
    subscription.unsubscribe();
  });

  it('the shared rules accept 0..MAX or Infinity and refuse the rest', () => {
    const Options = z.strictObject({ wait: configRules.delayMs(), timeout: configRules.timeoutMs() });
    expect(parseConfig(Options, { wait: 0, timeout: Infinity }, 'X')).toEqual({ wait: 0, timeout: Infinity });
    expect(parseConfig(Options, { wait: MAX_DELAY_MS, timeout: MAX_DELAY_MS }, 'X')).toEqual({ wait: MAX_DELAY_MS, timeout: MAX_DELAY_MS });
    expect(() => parseConfig(Options, { wait: MAX_DELAY_MS + 1, timeout: 1 }, 'X')).toThrow('X: wait must be from 0 to 2147483647 ms');
    expect(() => parseConfig(Options, { wait: 1, timeout: 0 }, 'X')).toThrow('X: timeout must be a number of milliseconds greater than 0');
    expect(() => parseConfig(Options, { wait: NaN, timeout: 1 }, 'X')).toThrow(ConfigError);
  });

  it('scheduleDelay and delayTimer never fire for Infinity and refuse what a timer cannot wait', () => {
    const ran: string[] = [];
    const scheduler = new VirtualTimeScheduler();
    scheduleDelay(scheduler, Infinity, () => ran.push('never'));
    scheduleDelay(scheduler, 5, () => ran.push('five'));
    delayTimer(Infinity, scheduler).subscribe(() => ran.push('timer never'));
    delayTimer(7, scheduler).subscribe(() => ran.push('timer seven'));
    scheduler.flush();
    expect(ran).toEqual(['five', 'timer seven']);
    expect(() => scheduleDelay(asyncScheduler, 30 * DAY, () => undefined)).toThrow(ConfigError);
    expect(() => delayTimer(-1)).toThrow(ConfigError);
  });

  it.each([null, undefined, 42, {}])('scheduleDelay and delayTimer refuse %p as the scheduler, and a delay that is not a number', (bad) => {
    expect(() => scheduleDelay(bad as never, 5, () => undefined)).toThrow(/^scheduleDelay: scheduler must be an RxJS scheduler/);
    expect(() => scheduleDelay(asyncScheduler, 5, bad as never)).toThrow(/^scheduleDelay: work must be a function/);
    if (bad !== undefined) expect(() => delayTimer(5, bad as never)).toThrow(/^delayTimer: scheduler must be an RxJS scheduler/);
    if (typeof bad !== 'number') expect(() => delayTimer(bad as never)).toThrow(ConfigError);
  });
});

describe('a runaway agent', () => {
  it('a synchronous generator is cut off at the first chunk past its deadline', () => {
    let now = 0;
    const clock = { now: () => now, schedule: asyncScheduler.schedule.bind(asyncScheduler) } as typeof asyncScheduler;
    let produced = 0;
    const agent = defineAgent('runaway', () =>
      (function* () {
        for (;;) {
          produced++;
          now += 1; // each chunk takes a millisecond on this clock, and never yields to the event loop
          yield 'x';
        }
      })(),
    );
    let error: unknown;
    stream(agent, 'go', { timeout: 50, scheduler: clock }).subscribe({ error: (e: unknown) => (error = e) });
    expect(error).toBeInstanceOf(AgentTimeoutError);
    expect(produced).toBeLessThanOrEqual(51);
  });

  it('an async generator that only awaits microtasks is cut off too', async () => {
    let now = 0;
    const clock = { now: () => now, schedule: asyncScheduler.schedule.bind(asyncScheduler) } as typeof asyncScheduler;
    const agent = defineAgent('runaway', async function* () {
      for (;;) {
        await Promise.resolve();
        now += 1;
        yield 'x';
      }
    });
    await expect(lastValueFrom(invoke$(agent, 'go', { timeout: 50, scheduler: clock }))).rejects.toBeInstanceOf(AgentTimeoutError);
  });
});

describe('strict options and inputs', () => {
  it('a misspelled invoke option is a ConfigError naming it and the likely intended key', () => {
    const agent = defineAgent('a', async () => 'x');
    const error = thrown(() => stream(agent, 'hi', { timout: 5 } as never));
    expect(error.message).toBe('agent call options: timout is not a known option (did you mean timeout?), got 5');
  });

  it('a misspelled agent definition field names the likely intended field', () => {
    const error = thrown(() => defineAgent({ id: 'a', nmae: 'Ada', chat: async () => 'x' } as never));
    expect(error.message).toBe('Agent definition: nmae is not a known option (did you mean name?), got "Ada"');
  });

  it('an unknown key far from every known one gets no guess', () => {
    const error = thrown(() => stream(defineAgent('a', async () => 'x'), 'hi', { colour: 'red' } as never));
    expect(error.message).toBe('agent call options: colour is not a known option, got "red"');
  });

  it('refuses a whitespace-only id', () => {
    expect(() => defineAgent('   ', async () => 'x')).toThrow('Agent definition: id must be a non-blank string, got "   "');
    expect(defineAgent('data analyst', async () => 'x').id).toBe('data analyst');
  });

  it('refuses a non-string input', () => {
    const agent = defineAgent('a', async () => 'x');
    expect(() => invoke$(agent, 42 as never)).toThrow("call to agent 'a': input must be a string, got 42");
  });
});

describe('ConfigError messages stay readable for hostile input', () => {
  it('lists the first 20 issues and counts the rest; all stay on the error', () => {
    const schema = z.array(configRules.positiveInt());
    const error = thrown(() => parseConfig(schema, Array.from({ length: 5_000 }, () => -1), 'Spec'));
    expect(error.issues).toHaveLength(5_000);
    expect(error.message.split('; ')).toHaveLength(21);
    expect(error.message).toMatch(/; and 4980 more \(see issues\)$/);
    expect(error.message.length).toBeLessThan(2_000);
  });

  it('bounds counts so a huge one is a ConfigError, not a RangeError later', () => {
    expect(() => parseConfig(configRules.positiveInt(), 2 ** 32, 'X')).toThrow('X: value must be a positive integer of at most 2147483647, got 4294967296');
    expect(() => parseConfig(configRules.nonNegativeInt(10), 11, 'X')).toThrow('X: value must be a non-negative integer of at most 10, got 11');
  });
});

describe('user code that throws where nobody listens', () => {
  let reported: unknown[];
  let previous: typeof config.onUnhandledError;
  beforeEach(() => {
    previous = config.onUnhandledError;
    reported = [];
    config.onUnhandledError = (error) => void reported.push(error);
  });
  afterEach(() => {
    config.onUnhandledError = previous;
  });

  it('an agent whose teardown throws still times out with AgentTimeoutError; the teardown error is reported', () => {
    testScheduler().run(({ expectObservable, flush }) => {
      const agent = defineAgent(
        'messy',
        () =>
          new Observable<string>(() => () => {
            throw new Error('teardown failed');
          }),
      );
      expectObservable(stream(agent, 'x', { timeout: 5 })).toBe('-----#', undefined, new AgentTimeoutError('messy', 5));
      flush();
    });
    expect(reported).toHaveLength(1);
  });

  it('lastValue still rejects with the abort reason when a teardown throws', async () => {
    const controller = new AbortController();
    const pending = lastValue(
      new Observable<number>(() => () => {
        throw new Error('teardown failed');
      }),
      { signal: controller.signal },
    );
    controller.abort(new Error('user left'));
    await expect(pending).rejects.toThrow('user left');
    expect(reported).toHaveLength(1);
  });

  it('an AgentError describes a cause that cannot be stringified, and keeps the message short', () => {
    const odd = Object.assign(Object.create(null) as object, { big: 1n });
    expect(new AgentError('a', odd).message).toBe('Agent "a" failed: [object Object]');
    expect(new AgentError('a', new Error('x'.repeat(1_000_000))).message.length).toBeLessThan(1_100);
  });
});
