import { TestScheduler } from 'rxjs/testing';
import { lastValueFrom, NEVER, Observable, type ObservableInput, of, Subject, take, throwError, toArray } from 'rxjs';
import { AgentError, AgentTimeoutError, callAgent, ConfigError, CoordinationError, defineAgent, invoke$, stream, type ChatOptions } from '@rxagents/core';

const testScheduler = () => new TestScheduler((actual, expected) => expect(actual).toEqual(expected));

describe('stream', () => {
  describe('accepts every form chat may return', () => {
    it('a Promise of the whole reply', async () => {
      const agent = defineAgent('a', async (input) => `re: ${input}`);
      await expect(lastValueFrom(stream(agent, 'hi').pipe(toArray()))).resolves.toEqual(['re: hi']);
    });

    it('an Observable of chunks, in order', async () => {
      const agent = defineAgent('a', () => of('x', 'y', 'z'));
      await expect(lastValueFrom(stream(agent, 'hi').pipe(toArray()))).resolves.toEqual(['x', 'y', 'z']);
    });

    it('an AsyncIterable of chunks', async () => {
      const agent = defineAgent('a', async function* () {
        yield 'one ';
        yield 'two';
      });
      await expect(lastValueFrom(stream(agent, 'hi').pipe(toArray()))).resolves.toEqual(['one ', 'two']);
    });

    it('an array of chunks', async () => {
      const agent = defineAgent('a', () => ['p', 'q']);
      await expect(lastValueFrom(stream(agent, 'hi').pipe(toArray()))).resolves.toEqual(['p', 'q']);
    });
  });

  describe('wraps failures in AgentError naming the agent', () => {
    const cause = new Error('boom');
    it.each([
      ['a synchronous throw', () => { throw cause; }],
      ['a rejected Promise', () => Promise.reject(cause)],
      ['an erroring Observable', () => throwError(() => cause)],
      ['a throwing AsyncIterable', async function* () { yield 'partial'; throw cause; }],
    ] as [string, () => ObservableInput<string>][])('%s', async (_label, chat) => {
      const agent = defineAgent('broken', chat);
      const error = await lastValueFrom(stream(agent, 'hi')).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(AgentError);
      expect(error).toBeInstanceOf(CoordinationError);
      expect((error as AgentError).agentId).toBe('broken');
      expect((error as AgentError).cause).toBe(cause);
      expect((error as AgentError).message).toBe('Agent "broken" failed: boom');
      expect((error as AgentError).code).toBe('AGENT_ERROR');
      expect((error as AgentError).retryable).toBe(false);
    });

    it('passes through an AgentError the agent raised about itself', async () => {
      const own = new AgentError('llm', new Error('rate limited'), { status: 429, retryable: true });
      const agent = defineAgent('llm', () => Promise.reject(own));
      await expect(lastValueFrom(stream(agent, 'hi'))).rejects.toBe(own);
    });

    it('inherits retryable from a retryable CoordinationError cause', async () => {
      const agent = defineAgent('outer', () => Promise.reject(new AgentTimeoutError('inner', 10)));
      const error = (await lastValueFrom(stream(agent, 'hi')).catch((e: unknown) => e)) as AgentError;
      expect(error.retryable).toBe(true);
      expect(error.cause).toBeInstanceOf(AgentTimeoutError);
    });

    it('rejects a non-string chunk with a typed error and aborts the agent', async () => {
      let signal: AbortSignal | undefined;
      const agent = defineAgent('odd', (_input, options) => {
        signal = options.signal;
        return of(42 as unknown as string);
      });
      const error = (await lastValueFrom(stream(agent, 'hi')).catch((e: unknown) => e)) as AgentError;
      expect(error).toBeInstanceOf(AgentError);
      expect(error.message).toContain('chunks must be strings');
      expect(signal?.aborted).toBe(true);
    });
  });

  describe('cancellation', () => {
    it('aborts the agent signal on unsubscribe', () => {
      const seen: ChatOptions[] = [];
      const agent = defineAgent('slow', (_input, options) => {
        seen.push(options);
        return NEVER;
      });
      const subscription = stream(agent, 'hi').subscribe();
      expect(seen[0]?.signal.aborted).toBe(false);
      subscription.unsubscribe();
      expect(seen[0]?.signal.aborted).toBe(true);
    });

    it('the signal is already aborted when the agent Observable is torn down', () => {
      let abortedAtTeardown: boolean | undefined;
      const agent = defineAgent('a', (_input, options) => new Observable<string>(() => () => (abortedAtTeardown = options.signal.aborted)));
      stream(agent, 'hi').subscribe().unsubscribe();
      expect(abortedAtTeardown).toBe(true);
    });

    it('gives every subscription its own AbortController', () => {
      const signals: AbortSignal[] = [];
      const agent = defineAgent('a', (_input, options) => {
        signals.push(options.signal);
        return NEVER;
      });
      const reply$ = stream(agent, 'hi');
      const first = reply$.subscribe();
      const second = reply$.subscribe();
      first.unsubscribe();
      expect(signals.map((s) => s.aborted)).toEqual([true, false]);
      second.unsubscribe();
    });

    it('does not abort after the reply completed', async () => {
      let signal: AbortSignal | undefined;
      const agent = defineAgent('a', async (_input, options) => {
        signal = options.signal;
        return 'done';
      });
      await lastValueFrom(stream(agent, 'hi'));
      expect(signal?.aborted).toBe(false);
    });

    it('ignores chunks that arrive after the abort', () => {
      const chunks = new Subject<string>();
      const agent = defineAgent('a', () => chunks);
      const received: string[] = [];
      stream(agent, 'hi').pipe(take(1)).subscribe((chunk) => received.push(chunk));
      chunks.next('first');
      chunks.next('late');
      expect(received).toEqual(['first']);
    });

    it('passes context and metadata through ChatOptions', async () => {
      let options: ChatOptions | undefined;
      const agent = defineAgent('a', async (_input, o) => {
        options = o;
        return 'ok';
      });
      const context = [{ role: 'user' as const, content: 'earlier' }];
      await lastValueFrom(stream(agent, 'hi', { context, metadata: { taskId: 't1' } }));
      expect(options?.context).toBe(context);
      expect(options?.metadata).toEqual({ taskId: 't1' });
    });
  });

  describe('timeout on virtual time', () => {
    it('fails with AgentTimeoutError and aborts the agent', () => {
      let signal: AbortSignal | undefined;
      testScheduler().run(({ cold, expectObservable }) => {
        const agent = defineAgent('slow', (_input, options) => {
          signal = options.signal;
          return cold('--a---------b|', { a: 'x', b: 'y' });
        });
        expectObservable(stream(agent, 'hi', { timeout: 5 })).toBe('--a--#', { a: 'x' }, new AgentTimeoutError('slow', 5));
      });
      expect(signal?.aborted).toBe(true);
    });

    it('reports the reason on the signal and is retryable', () => {
      testScheduler().run(({ cold, flush }) => {
        let signal: AbortSignal | undefined;
        const agent = defineAgent('slow', (_input, options) => {
          signal = options.signal;
          return cold('----------a|', { a: 'x' });
        });
        let error: unknown;
        stream(agent, 'hi', { timeout: 3 }).subscribe({ error: (e: unknown) => (error = e) });
        flush();
        expect(error).toBeInstanceOf(AgentTimeoutError);
        expect((error as AgentTimeoutError).retryable).toBe(true);
        expect(signal?.aborted).toBe(true);
        expect(signal?.reason).toBe(error);
      });
    });

    it('completes normally when the reply beats the timeout', () => {
      testScheduler().run(({ cold, expectObservable }) => {
        const agent = defineAgent('quick', () => cold('-a-b|', { a: 'x', b: 'y' }));
        expectObservable(stream(agent, 'hi', { timeout: 10 })).toBe('-a-b|', { a: 'x', b: 'y' });
      });
    });

    it('rejects a bad timeout with a ConfigError naming the field', () => {
      const agent = defineAgent('a', async () => 'x');
      expect(() => stream(agent, 'hi', { timeout: -1 })).toThrow(ConfigError);
      expect(() => stream(agent, 'hi', { timeout: -1 })).toThrow('agent call options: timeout must be a number of milliseconds greater than 0 and at most 2147483647 (about 24.8 days), or Infinity for no timeout, got -1');
    });
  });
});

describe('stream, what is not an agent', () => {
  it.each([
    ['null', null],
    ['an object without chat', { id: 'writer' }],
    ['a blank id', { id: '  ', chat: async (): Promise<string> => 'x' }],
    ['an id that is not a string', { id: 7, chat: async (): Promise<string> => 'x' }],
  ])('refuses %s with a ConfigError at once, in every form of the call', (_, agent) => {
    const message = /^agent call: agent must be an agent \(an object with a non-blank id and a chat function\)/;
    expect(() => stream(agent as never, 'hi')).toThrow(message);
    expect(() => callAgent(agent as never, 'hi')).toThrow(message);
    expect(() => invoke$(agent as never, 'hi')).toThrow(ConfigError);
  });
});

describe('stream signal, read late', () => {
  it('an agent that reads its signal only after the abort sees it aborted, with the reason', () => {
    let late: ChatOptions | undefined;
    const agent = defineAgent('late', (_input, options) => {
      late = options; // keeps the options, does not touch the signal yet
      return NEVER;
    });
    stream(agent, 'x').subscribe().unsubscribe();
    expect(late?.signal.aborted).toBe(true);
    expect((late?.signal.reason as Error).name).toBe('AbortError');
  });

  it('a wrapping agent that spreads the options passes a live signal on', () => {
    let inner: ChatOptions | undefined;
    const wrapped = defineAgent('inner', (_input, options) => {
      inner = options;
      return NEVER;
    });
    const outer = defineAgent('outer', (input, options) => wrapped.chat(input, { ...options, metadata: { via: 'outer' } }));
    const subscription = stream(outer, 'x').subscribe();
    expect(inner?.signal.aborted).toBe(false);
    subscription.unsubscribe();
    expect(inner?.signal.aborted).toBe(true);
  });
});

describe('stream, review regressions', () => {
  it('stops pulling a synchronous agent once the caller unsubscribed', async () => {
    let pulled = 0;
    const agent = defineAgent('sync', () =>
      (function* () {
        while (pulled < 10_000) {
          pulled += 1;
          yield 'x';
        }
      })(),
    );

    await expect(lastValueFrom(stream(agent, 'hi').pipe(take(1), toArray()))).resolves.toEqual(['x']);
    expect(pulled).toBeLessThanOrEqual(2);
  });

  it('aborts a synchronous agent the caller left while it was still emitting', () => {
    let signal: AbortSignal | undefined;
    const agent = defineAgent('sync', (_input, options) => {
      signal = options.signal;
      return of('a', 'b', 'c');
    });

    stream(agent, 'hi').pipe(take(1)).subscribe();

    expect(signal?.aborted).toBe(true);
  });

  it('an agent that reads its signal only after a timeout sees the AgentTimeoutError as the reason', () => {
    let late: ChatOptions | undefined;
    let error: unknown;
    testScheduler().run(({ flush }) => {
      const agent = defineAgent('late', (_input, options) => {
        late = options;
        return NEVER;
      });
      stream(agent, 'x', { timeout: 4 }).subscribe({ error: (e: unknown) => (error = e) });
      flush();
    });
    expect(error).toBeInstanceOf(AgentTimeoutError);
    expect(late?.signal.aborted).toBe(true);
    expect(late?.signal.reason).toBe(error);
  });
});

