import { TestScheduler } from 'rxjs/testing';
import { lastValueFrom, of } from 'rxjs';
import { ConfigError, defineAgent, invoke, invoke$ } from '@rxagents/core';

describe('invoke$', () => {
  it('emits the chunks joined, once', () => {
    new TestScheduler((a, e) => expect(a).toEqual(e)).run(({ cold, expectObservable }) => {
      const agent = defineAgent('w', () => cold('-a-b-c|', { a: 'Once ', b: 'upon ', c: 'a time' }));
      expectObservable(invoke$(agent, 'story')).toBe('------(r|)', { r: 'Once upon a time' });
    });
  });

  it("replies '' when the agent completes without a chunk", async () => {
    const agent = defineAgent('quiet', () => of<string>());
    await expect(lastValueFrom(invoke$(agent, 'hi'))).resolves.toBe('');
  });
});

describe('invoke', () => {
  it('resolves with the whole reply', async () => {
    const agent = defineAgent('w', () => of('Once ', 'upon ', 'a time'));
    await expect(invoke(agent, 'story')).resolves.toBe('Once upon a time');
  });

  it('rejects with the agent error and with the abort reason, and aborting reaches the agent', async () => {
    await expect(invoke(defineAgent('bad', async () => Promise.reject(new Error('boom'))), 'hi')).rejects.toThrow('Agent "bad" failed: boom');
    let agentSignal: AbortSignal | undefined;
    const hanging = defineAgent('stuck', (_input, { signal }) => {
      agentSignal = signal;
      return new Promise<string>(() => undefined);
    });
    const controller = new AbortController();
    const answer = invoke(hanging, 'hello?', { signal: controller.signal });
    controller.abort(new Error('user left'));
    await expect(answer).rejects.toThrow('user left');
    expect(agentSignal?.aborted).toBe(true);
  });

  it('refuses a signal that is not an AbortSignal with a ConfigError, without calling the agent', async () => {
    let calls = 0;
    const agent = defineAgent('w', async () => {
      calls += 1;
      return 'x';
    });
    await expect(invoke(agent, 'hi', { signal: 'stop' as never })).rejects.toThrow(ConfigError);
    await expect(invoke(agent, 'hi', { signal: {} as never })).rejects.toThrow('agent call options: signal must be an AbortSignal, got {}');
    expect(calls).toBe(0);
  });

  it('refuses an unknown option with a ConfigError, as every agent call does', async () => {
    await expect(invoke(defineAgent('w', async () => 'x'), 'hi', { timout: 5 } as never)).rejects.toThrow('agent call options: timout is not a known option (did you mean timeout?), got 5');
  });

  it('rejects, never throws, on an argument that is no agent or no string: it is a Promise API', async () => {
    let threw = false;
    let pending: Promise<string> | undefined;
    try {
      pending = invoke(null as never, 'hi');
    } catch {
      threw = true;
    }
    expect(threw).toBe(false);
    await expect(pending).rejects.toThrow('agent call: agent must be an agent');
    await expect(invoke(defineAgent('w', async () => 'x'), 42 as never)).rejects.toThrow(ConfigError);
  });
});
