import { TestScheduler } from 'rxjs/testing';
import { type SchedulerLike, Subscription } from 'rxjs';
import { AgentError, stream, MAX_DELAY_MS } from '@rxagents/core';
import { failingAgent } from '@rxagents/testing';

const testScheduler = () => new TestScheduler((actual, expected) => expect(actual).toEqual(expected));

describe('failingAgent configuration', () => {
  it('refuses a blank id', () => {
    expect(() => failingAgent('  ')).toThrow(/failingAgent: id must be a non-blank string/);
  });

  it('refuses a misspelled option and an unknown mode, naming them', () => {
    expect(() => failingAgent('f', new Error('x'), { mdoe: 'reject' } as never)).toThrow(/failingAgent: options\.mdoe is not a known option \(did you mean mode\?\)/);
    expect(() => failingAgent('f', new Error('x'), { mode: 'explode' } as never)).toThrow(/options\.mode must be one of "throw", "reject", "error"/);
  });

  it.each(['throw', 'reject'] as const)('refuses a delay with mode %p, which fails at once, rather than ignoring it', (mode) => {
    expect(() => failingAgent('f', new Error('x'), { mode, delay: 500 })).toThrow(`failingAgent: options.delay applies to mode 'error' only (mode '${mode}' fails at once), got 500`);
    expect(() => failingAgent('f', new Error('x'), { mode })).not.toThrow();
    expect(() => failingAgent('f', new Error('x'), { mode: 'error', delay: 500 })).not.toThrow();
  });

  it.each([2 ** 31, -1, Number.NaN])('refuses the delay %p, which a timer cannot wait', (delay) => {
    expect(() => failingAgent('f', new Error('x'), { delay })).toThrow(new RegExp(`options\\.delay must be from 0 to ${MAX_DELAY_MS} ms`));
  });
});

describe('failingAgent timing', () => {
  it('schedules nothing and never fails when the delay is Infinity', () => {
    const delays: number[] = [];
    const scheduler = {
      now: () => 0,
      schedule: (_work: unknown, delay = 0) => {
        delays.push(delay);
        return Subscription.EMPTY;
      },
    } as SchedulerLike;
    const seen: unknown[] = [];

    stream(failingAgent('f', new Error('x'), { delay: Infinity, scheduler }), 'hi').subscribe({ error: (error: unknown) => seen.push(error) });

    expect(delays).toEqual([]);
    expect(seen).toEqual([]);
  });

  it('fails at once with no delay, and after the delay on virtual time', () => {
    testScheduler().run(({ expectObservable }) => {
      const cause = new Error('down');
      expectObservable(stream(failingAgent('f', cause), 'x')).toBe('#', undefined, new AgentError('f', cause));
      expectObservable(stream(failingAgent('g', cause, { delay: 5 }), 'x')).toBe('-----#', undefined, new AgentError('g', cause));
    });
  });
});
