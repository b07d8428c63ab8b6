import { TestScheduler } from 'rxjs/testing';
import { asyncScheduler, lastValueFrom, NEVER, of, type SchedulerLike } from 'rxjs';
import { AgentError, AgentTimeoutError, callAgent, ConfigError, defineAgent, invoke, lastValue, type AgentCallResult, type RunContext } from '@rxagents/core';

const testScheduler = () => new TestScheduler((actual, expected) => expect(actual).toEqual(expected));

describe('callAgent', () => {
  it('emits one success with the input, the whole reply and scheduler times, then completes', () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const agent = defineAgent('w', () => cold('-a-b|', { a: 'Once ', b: 'upon' }));
      const expected: AgentCallResult = { success: true, agentId: 'w', input: 'story', output: 'Once upon', startedAt: 0, durationMs: 4 };
      expectObservable(callAgent(agent, 'story')).toBe('----(r|)', { r: expected });
    });
  });

  it('records startedAt at subscription, on the given scheduler', () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const agent = defineAgent('w', () => cold('--a|', { a: 'x' }));
      expectObservable(callAgent(agent, 'go'), '----^').toBe('-------(r|)', { r: expect.objectContaining({ startedAt: 4, durationMs: 3 }) });
    });
  });

  it('records a failure as a value: the AgentError instance, no output, and never errors', () => {
    testScheduler().run(({ cold, expectObservable, flush }) => {
      const cause = new Error('model down');
      const agent = defineAgent('broken', () => cold('--#', undefined, cause));
      const results: AgentCallResult[] = [];
      let errored = false;
      callAgent(agent, 'hi').subscribe({ next: (result) => results.push(result), error: () => (errored = true) });
      expectObservable(callAgent(agent, 'hi')).toBe('--(r|)', { r: expect.objectContaining({ success: false, agentId: 'broken', input: 'hi', startedAt: 0, durationMs: 2 }) });
      flush();
      expect(errored).toBe(false);
      expect(results).toHaveLength(1);
      const [result] = results;
      expect(result?.success).toBe(false);
      expect(result?.output).toBeUndefined();
      expect(result?.error).toBeInstanceOf(AgentError);
      expect(result?.error?.message).toBe('Agent "broken" failed: model down');
      expect((result?.error as AgentError).cause).toBe(cause);
    });
  });

  it('records a timeout as an AgentTimeoutError after the timeout, on virtual time', () => {
    testScheduler().run(({ expectObservable, flush }) => {
      const agent = defineAgent('sloth', () => NEVER);
      const results: AgentCallResult[] = [];
      callAgent(agent, 'hi', { timeout: 50 }).subscribe((result) => results.push(result));
      expectObservable(callAgent(agent, 'hi', { timeout: 50 })).toBe('50ms (r|)', { r: expect.objectContaining({ success: false, durationMs: 50 }) });
      flush();
      expect(results[0]?.error).toBeInstanceOf(AgentTimeoutError);
      expect(results[0]?.error?.message).toBe('Agent "sloth" did not answer within 50 ms');
    });
  });

  it('aborts the agent when unsubscribed before the result, and emits nothing', () => {
    let signal: AbortSignal | undefined;
    const agent = defineAgent('slow', (_input, options) => {
      signal = options.signal;
      return NEVER;
    });
    const emitted: AgentCallResult[] = [];
    const subscription = callAgent(agent, 'hi').subscribe((result) => emitted.push(result));
    subscription.unsubscribe();
    expect(signal?.aborted).toBe(true);
    expect(emitted).toEqual([]);
  });

  it('calls the agent again on each subscription', async () => {
    let calls = 0;
    const agent = defineAgent('counter', async () => String((calls += 1)));
    const call$ = callAgent(agent, 'n');
    await expect(lastValueFrom(call$)).resolves.toMatchObject({ success: true, output: '1' });
    await expect(lastValueFrom(call$)).resolves.toMatchObject({ success: true, output: '2' });
  });

  it('throws a ConfigError synchronously for a bad input or option, as invoke does', () => {
    const agent = defineAgent('a', async () => 'x');
    expect(() => callAgent(agent, 42 as unknown as string)).toThrow(ConfigError);
    expect(() => callAgent(agent, 'hi', { timout: 5 } as never)).toThrow(ConfigError);
  });

  it('refuses options that are not an object with a ConfigError, as invoke$ does, in callAgent, invoke and lastValue', async () => {
    const agent = defineAgent('a', async () => 'x');
    expect(() => callAgent(agent, 'hi', null as never)).toThrow('agent call options: value must be an object, got null');
    await expect(invoke(agent, 'hi', null as never)).rejects.toThrow('agent call options: value must be an object, got null');
    await expect(lastValue(of(1), null as never)).rejects.toThrow('lastValue options: value must be an object, got null');
  });
});

describe('callAgent in a paced run', () => {
  it('times a call that waited for a slow reader from its start, not from its subscription', async () => {
    // A clock the test moves, and a reader that has no room until the test makes some.
    let now = 1_000;
    const clock: SchedulerLike = { now: () => now, schedule: asyncScheduler.schedule.bind(asyncScheduler) };
    let open!: () => void;
    let room = false;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const run: RunContext = { runId: 'r', callId: 'c', parentCallId: null, scheduler: clock, emit: () => undefined, pace: () => (room ? undefined : gate) };
    const agent = defineAgent('writer', async () => {
      now += 5;
      return 'done';
    });

    const result = lastValueFrom(callAgent(agent, 'go', { scheduler: clock, run }));
    now += 100; // The reader is slow: the call waits 100 ms before it may start.
    room = true;
    open();

    expect(await result).toMatchObject({ success: true, output: 'done', startedAt: 1_100, durationMs: 5 });
  });

  it('records a gate that fails as a failed result, as an agent failure is', async () => {
    const run: RunContext = { runId: 'r', callId: 'c', parentCallId: null, scheduler: asyncScheduler, emit: () => undefined, pace: () => Promise.reject(new Error('reader gone')) };
    const result = await lastValueFrom(callAgent(defineAgent('writer', async () => 'done'), 'go', { run }));
    expect(result).toMatchObject({ success: false, agentId: 'writer' });
    expect(result.success ? undefined : result.error.message).toBe('reader gone');
  });
});
