import { ConfigError, MAX_DELAY_MS } from '@rxagents/core';
import { CircuitBreakerOpenError, detectLivelock, type LivelockEvent } from '@rxagents/choreography';
import { type SchedulerLike, Subject, VirtualAction, VirtualTimeScheduler } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';

const newScheduler = () => new TestScheduler((actual, expected) => expect(actual).toEqual(expected));

const events: Record<string, LivelockEvent> = {
  m: { kind: 'message', agentId: 'a', message: 'retry' },
  A: { kind: 'state', agentId: 'a', state: 'A' },
  B: { kind: 'state', agentId: 'a', state: 'B' },
  x: { kind: 'action', agentId: 'a', action: 'search' },
  y: { kind: 'action', agentId: 'a', action: 'book' },
};

describe('detectLivelock', () => {
  it('emits a repeated message live, at the 5th within the window', () => {
    newScheduler().run(({ cold, expectObservable }) => {
      const source = cold('m 2499ms m 2499ms m 2499ms m 2499ms m 10ms |', events);
      expectObservable(source.pipe(detectLivelock())).toBe('10000ms v 10ms |', {
        v: { type: 'REPEATED_MESSAGE', agentId: 'a', detail: 'Message repeated 5 times within 10000 ms: "retry"', timestamp: 10_000 },
      });
    });
  });

  it('emits an oscillation at the 4th alternation', () => {
    newScheduler().run(({ cold, expectObservable }) => {
      expectObservable(cold('ABABA|', events).pipe(detectLivelock())).toBe('----v|', { v: expect.objectContaining({ type: 'OSCILLATING_STATE', timestamp: 4 }) });
    });
  });

  it('emits a progress stall on time, exactly 30 s after the last new action, without waiting for another event', () => {
    newScheduler().run(({ cold, expectObservable }) => {
      const source = cold('x 9999ms x 9999ms y 59999ms |', events);
      expectObservable(source.pipe(detectLivelock())).toBe('50000ms s 29999ms |', {
        s: { type: 'PROGRESS_STALL', agentId: 'a', detail: 'No new action for 30000 ms (limit 30000 ms)', timestamp: 50_000 },
      });
    });
  });

  it('emits the violation that trips the breaker, then errors with CircuitBreakerOpenError', () => {
    newScheduler().run(({ cold, expectObservable }) => {
      const output = cold('m-m-m-m|', events).pipe(detectLivelock({ repeatedMessageThreshold: 1, circuitBreakerThreshold: 3 }));
      expectObservable(output).toBe('v-v-(v#)', { v: expect.objectContaining({ type: 'REPEATED_MESSAGE' }) }, new CircuitBreakerOpenError(3));
    });
  });

  it('cancels its stall timers when the source completes or the subscriber leaves', () => {
    newScheduler().run(({ cold, expectObservable }) => {
      expectObservable(cold('x|', events).pipe(detectLivelock())).toBe('-|');
      expectObservable(cold('x', events).pipe(detectLivelock()), '^ 100ms !').toBe('');
    });
  });

  it('passes source errors through', () => {
    newScheduler().run(({ cold, expectObservable }) => {
      expectObservable(cold('x#', events, new Error('feed broke')).pipe(detectLivelock())).toBe('-#', undefined, new Error('feed broke'));
    });
  });

  it('a null or non-object event errors with a ConfigError naming the event, not a TypeError', () => {
    newScheduler().run(({ cold, expectObservable }) => {
      const feed = cold('x-n', { ...events, n: null as unknown as LivelockEvent });
      expectObservable(feed.pipe(detectLivelock())).toBe('--#', undefined, expect.objectContaining({ name: 'ConfigError', message: 'detectLivelock event: value must be an event object { kind, agentId, ... }, got null' }));
    });
  });

  it('validates its options when created', () => {
    expect(() => detectLivelock({ progressTimeoutMs: 0 })).toThrow(ConfigError);
  });
});

describe('detectLivelock: long and infinite progress timeouts', () => {
  /** A virtual clock that records the delay of every action scheduled on it. */
  function countingClock(): { clock: VirtualTimeScheduler; delays: number[]; scheduler: SchedulerLike } {
    const clock = new VirtualTimeScheduler(VirtualAction, Infinity);
    const delays: number[] = [];
    const scheduler: SchedulerLike = {
      now: () => clock.now(),
      schedule: (work: never, delay?: number, state?: never) => {
        delays.push(delay ?? 0);
        return clock.schedule(work, delay, state);
      },
    };
    return { clock, delays, scheduler };
  }

  it('with progressTimeoutMs: Infinity schedules nothing and never reports a stall', () => {
    const { clock, delays, scheduler } = countingClock();
    const events = new Subject<LivelockEvent>();
    const heard: string[] = [];
    events.pipe(detectLivelock({ progressTimeoutMs: Infinity, scheduler })).subscribe((v) => heard.push(v.type));
    events.next({ kind: 'action', agentId: 'a', action: 'search' });
    events.next({ kind: 'action', agentId: 'a', action: 'search' });
    clock.flush();
    expect(delays).toEqual([]);
    expect(heard).toEqual([]);
  });

  it('with progressTimeoutMs at the 2^31-1 ms bound, one timer at that delay, and the stall is reported then, not earlier', () => {
    const { clock, delays, scheduler } = countingClock();
    const events = new Subject<LivelockEvent>();
    const heard: number[] = [];
    events.pipe(detectLivelock({ progressTimeoutMs: MAX_DELAY_MS, scheduler })).subscribe((v) => heard.push(v.timestamp));
    events.next({ kind: 'action', agentId: 'a', action: 'search' });
    clock.flush();
    expect(delays).toEqual([MAX_DELAY_MS]);
    expect(heard).toEqual([MAX_DELAY_MS]);
  });

  it('refuses a progressTimeoutMs of 2^31 ms or more (the platform cannot wait that long)', () => {
    expect(() => detectLivelock({ progressTimeoutMs: 2 ** 31 })).toThrow(ConfigError);
    expect(() => detectLivelock({ progressTimeoutMs: 2 ** 31 })).toThrow('detectLivelock options: progressTimeoutMs must be a number of milliseconds greater than 0 and at most 2147483647');
  });
});

describe('detectLivelock: malformed events', () => {
  it.each([
    [{ kind: 'actoin', agentId: 'a', action: 'x' }, 'detectLivelock event: kind must be "message", "state" or "action", got "actoin"'],
    [{ kind: 'action', agentId: 'a' }, 'detectLivelock event: action must be a string, got undefined'],
    [{ kind: 'message', agentId: 7, message: 'x' }, 'detectLivelock event: agentId must be a string, got 7'],
  ])('errors the stream with a ConfigError on %p instead of counting it as something else', (event, message) => {
    newScheduler().run(({ cold, expectObservable }) => {
      const output = cold('e', { e: event as unknown as LivelockEvent }).pipe(detectLivelock());
      expectObservable(output).toBe('#', undefined, expect.objectContaining({ name: 'ConfigError', message }));
    });
  });
});
