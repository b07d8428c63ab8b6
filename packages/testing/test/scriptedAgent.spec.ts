import { getEventListeners } from 'node:events';
import { TestScheduler } from 'rxjs/testing';
import { from, lastValueFrom, type SchedulerLike, Subscription, VirtualTimeScheduler } from 'rxjs';
import { AgentError, ConfigError, MAX_DELAY_MS, stream, invoke$ } from '@rxagents/core';
import { answerToObservable, scriptedAgent, type ScriptAnswer } from '@rxagents/testing';

const testScheduler = () => new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
const failure = (promise: Promise<unknown>): Promise<unknown> => promise.then(() => 'no error', (error: unknown) => error);

describe('scriptedAgent configuration', () => {
  it.each(['', '   ', '\n\t'])('refuses the blank id %p', (id) => {
    expect(() => scriptedAgent(id, 'x')).toThrow(/scriptedAgent: id must be a non-blank string/);
  });

  it('refuses a misspelled option, naming the likely one', () => {
    expect(() => scriptedAgent('a', 'x', { sheduler: new VirtualTimeScheduler() } as never)).toThrow(
      /scriptedAgent: options\.sheduler is not a known option \(did you mean scheduler\?\)/,
    );
    expect(() => scriptedAgent('a', 'x', { scheduler: 5 } as never)).toThrow(/options\.scheduler must be an RxJS scheduler/);
  });

  it('refuses a misspelled answer field instead of answering without it', () => {
    expect(() => scriptedAgent('a', { reply: 'x', dealy: 5 } as never)).toThrow(/script\.dealy is not a known option \(did you mean delay\?\)/);
    expect(() => scriptedAgent('a', [{ match: 'hi', answer: { chunks: ['x'], intervall: 5 } as never }])).toThrow(
      /script\.0\.answer\.intervall is not a known option \(did you mean interval\?\)/,
    );
    expect(() => scriptedAgent('a', [{ mtach: 'hi', answer: 'x' } as never])).toThrow(/script\.0\.mtach is not a known option \(did you mean match\?\)/);
  });

  it('refuses an answer of no known shape and a matcher of the wrong type', () => {
    expect(() => scriptedAgent('a', { text: 'x' } as never)).toThrow(/script must be a string, \{ reply \}, \{ chunks \}, \{ marbles \} or \{ error \}/);
    expect(() => scriptedAgent('a', [{ match: 42, answer: 'x' } as never])).toThrow(/script\.0\.match must be a string, a RegExp or a function/);
  });

  it.each([
    [{ reply: 'x', delay: 2 ** 31 }, 'script.delay'],
    [{ reply: 'x', delay: -1 }, 'script.delay'],
    [{ reply: 'x', delay: Number.NaN }, 'script.delay'],
    [{ chunks: ['a', 'b'], interval: MAX_DELAY_MS + 1 }, 'script.interval'],
    [{ error: new Error('late'), delay: 30 * 86_400_000 }, 'script.delay'],
  ] as [ScriptAnswer, string][])('refuses the delay of %p, which a timer cannot wait', (answer, path) => {
    expect(() => scriptedAgent('a', answer)).toThrow(new RegExp(`${path.replace('.', '\\.')} must be from 0 to ${MAX_DELAY_MS} ms`));
  });

  it('refuses a marble diagram longer than a timer can wait, or that is not a marble diagram', () => {
    expect(() => scriptedAgent('a', { marbles: '40000m a|' })).toThrow(/script\.marbles must last at most 2147483647 ms/);
    expect(() => scriptedAgent('a', { marbles: '-a-(b|' })).toThrow(/script\.marbles is not a valid marble diagram/);
    expect(() => scriptedAgent('a', { marbles: '-a-b)|' })).toThrow(/script\.marbles is not a valid marble diagram/);
    expect(() => scriptedAgent('a', { marbles: '^-a|' })).toThrow(/script\.marbles cannot contain \^ or !/);
  });

  it('refuses a marble value that values does not define, instead of emitting undefined', () => {
    expect(() => scriptedAgent('a', { marbles: '-a-b|', values: { a: 'x' } })).toThrow(/script\.values is missing "b", a character of the marble diagram/);
  });
});

describe('scriptedAgent timing', () => {
  // What asyncScheduler would do with each delay: setInterval fires Infinity (and anything of 2^31 ms or more) after 1 ms.
  const recordingScheduler = () => {
    const delays: number[] = [];
    const scheduler: SchedulerLike = {
      now: () => 0,
      schedule: (_work: unknown, delay = 0) => {
        delays.push(delay);
        return Subscription.EMPTY;
      },
    } as SchedulerLike;
    return { scheduler, delays };
  };

  it.each([
    { reply: 'x', delay: Infinity },
    { chunks: ['a', 'b'], delay: Infinity },
    { error: new Error('never'), delay: Infinity },
  ] as ScriptAnswer[])('schedules nothing for the delay Infinity in %p: it never answers', (answer) => {
    const { scheduler, delays } = recordingScheduler();
    const seen: unknown[] = [];

    stream(scriptedAgent('a', answer, { scheduler }), 'hi').subscribe({ next: (chunk) => seen.push(chunk), error: (error: unknown) => seen.push(error) });

    expect(delays).toEqual([]);
    expect(seen).toEqual([]);
  });

  it('streams the first chunk and schedules nothing more when the interval is Infinity', () => {
    const { scheduler, delays } = recordingScheduler();
    const seen: string[] = [];

    stream(scriptedAgent('a', { chunks: ['a', 'b'], interval: Infinity }, { scheduler }), 'hi').subscribe((chunk) => seen.push(chunk));

    expect(seen).toEqual(['a']);
    expect(delays).toEqual([]);
  });

  it('streams the first chunk and then nothing when the interval is Infinity, on virtual time', () => {
    testScheduler().run(({ expectObservable }) => {
      expectObservable(stream(scriptedAgent('a', { chunks: ['a', 'b'], delay: 2, interval: Infinity }), 'hi'), '^ 1000ms !').toBe('--a');
    });
  });

  it('answers after the longest delay a timer can wait, on virtual time', () => {
    const clock = new VirtualTimeScheduler();
    const seen: [number, string][] = [];
    stream(scriptedAgent('a', { reply: 'late', delay: MAX_DELAY_MS }, { scheduler: clock }), 'hi').subscribe((chunk) => seen.push([clock.now(), chunk]));
    clock.flush();
    expect(seen).toEqual([[MAX_DELAY_MS, 'late']]);
  });

  it('streams every one of many chunks without interval after a delay, then completes', () => {
    const chunks = Array.from({ length: 20_000 }, (_, index) => `${index} `);
    const clock = new VirtualTimeScheduler();
    const seen: number[] = [];
    let end = '';
    stream(scriptedAgent('a', { chunks, delay: 4 }, { scheduler: clock }), 'hi').subscribe({
      next: () => seen.push(clock.now()),
      error: (error: unknown) => (end = String(error)),
      complete: () => (end = 'complete'),
    });
    clock.flush();
    expect(end).toBe('complete');
    expect(seen).toHaveLength(20_000);
    expect(new Set(seen)).toEqual(new Set([4]));
  });

  it('still completes at once for no chunks, whatever the delay', () => {
    testScheduler().run(({ expectObservable }) => {
      expectObservable(stream(scriptedAgent('a', { chunks: [], delay: 5 }), 'hi')).toBe('|');
    });
  });
});

describe('scriptedAgent user functions', () => {
  it('fails the call, naming the rule, when a computed answer is not an answer (a forgotten return)', async () => {
    const agent = scriptedAgent('a', [{ match: 'hi', answer: (() => undefined) as never }]);

    const error = await failure(lastValueFrom(invoke$(agent, 'hi')));

    expect(error).toBeInstanceOf(AgentError);
    expect((error as AgentError).cause).toBeInstanceOf(ConfigError);
    expect((error as AgentError).message).toMatch(/the answer returned by script\.0\.answer: value must be a string, \{ reply \}/);
  });

  it('fails the call when a computed answer has a bad delay', async () => {
    const agent = scriptedAgent('a', () => ({ reply: 'x', delay: 2 ** 31 }));

    const error = await failure(lastValueFrom(invoke$(agent, 'hi')));

    expect((error as AgentError).cause).toBeInstanceOf(ConfigError);
    expect((error as AgentError).message).toMatch(/delay must be from 0 to 2147483647 ms/);
  });

  it('fails the call, naming the rule, when a matcher returns something other than a boolean', async () => {
    const agent = scriptedAgent('a', [
      { match: (() => undefined) as never, answer: 'first' },
      { match: () => true, answer: 'fallback' },
    ]);

    const error = await failure(lastValueFrom(invoke$(agent, 'hi')));

    expect(error).toBeInstanceOf(AgentError);
    expect((error as AgentError).cause).toBeInstanceOf(ConfigError);
    expect((error as AgentError).message).toMatch(/script\.0\.match must return a boolean \(true or false\), got undefined/);
  });

  it('fails the call with the thrown error when a matcher or an answer function throws', async () => {
    const broken = new Error('matcher broke');
    const agent = scriptedAgent('a', [
      {
        match: () => {
          throw broken;
        },
        answer: 'x',
      },
    ]);

    const error = await failure(lastValueFrom(invoke$(agent, 'hi')));

    expect(error).toMatchObject({ agentId: 'a', cause: broken });
  });
});

describe('scriptedAgent cancellation', () => {
  it('never runs the script for a call whose signal is already aborted, and counts the abort', async () => {
    const controller = new AbortController();
    controller.abort(new Error('gone'));
    let ran = 0;
    const agent = scriptedAgent('a', () => {
      ran += 1;
      return 'x';
    });

    const error = await failure(lastValueFrom(from(agent.chat('hi', { signal: controller.signal }))));

    expect(error).toEqual(new Error('gone'));
    expect(ran).toBe(0);
    expect(agent.abortCount).toBe(1);
  });

  it('never runs the script when the signal aborts between chat and subscription', async () => {
    const controller = new AbortController();
    let ran = 0;
    const agent = scriptedAgent('a', () => {
      ran += 1;
      return 'x';
    });

    const answer = from(agent.chat('hi', { signal: controller.signal }));
    controller.abort(new Error('gone'));
    const error = await failure(lastValueFrom(answer));

    expect(error).toEqual(new Error('gone'));
    expect(ran).toBe(0);
  });

  it('does not count an abort that comes after the answer finished', async () => {
    const controller = new AbortController();
    const agent = scriptedAgent('a', 'done');

    await expect(lastValueFrom(from(agent.chat('hi', { signal: controller.signal })))).resolves.toBe('done');
    controller.abort();

    expect(agent.abortCount).toBe(0);
  });
});

describe('scriptedAgent without a matching rule', () => {
  it('quotes at most 80 characters of the input in its error', async () => {
    const error = await failure(lastValueFrom(invoke$(scriptedAgent('a', [{ match: 'hi', answer: 'x' }]), 'y'.repeat(100_000))));

    expect((error as AgentError).message).toMatch(/has no rule for input "y+\.\.\.$/);
    expect((error as AgentError).message.length).toBeLessThan(200);
  });
});

describe('answerToObservable', () => {
  it('refuses an invalid answer with a ConfigError', () => {
    expect(() => answerToObservable({ reply: 'x', delay: -1 })).toThrow(ConfigError);
    expect(() => answerToObservable({ chunks: ['x'], intervl: 1 } as never)).toThrow(/intervl is not a known option \(did you mean interval\?\)/);
    expect(() => answerToObservable({ reply: 'x', delay: 5 }, 5 as never)).toThrow(/script answer: scheduler must be an RxJS scheduler/);
  });
});

describe('scriptedAgent and a shared signal', () => {
  it('takes its abort listener off when the caller leaves without aborting', () => {
    const agent = scriptedAgent('s', { reply: 'late', delay: 1_000 });
    const shared = new AbortController();
    for (let i = 0; i < 20; i++) from(agent.chat('hi', { signal: shared.signal })).subscribe().unsubscribe();
    expect(getEventListeners(shared.signal, 'abort')).toHaveLength(0);
    shared.abort();
    expect(agent.abortCount).toBe(0);
  });
});
