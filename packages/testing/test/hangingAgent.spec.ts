import { getEventListeners } from 'node:events';
import { from } from 'rxjs';
import { ConfigError } from '@rxagents/core';
import { hangingAgent } from '@rxagents/testing';

describe('hangingAgent', () => {
  it('refuses a blank id and unknown details', () => {
    expect(() => hangingAgent('')).toThrow(/hangingAgent: id must be a non-blank string/);
    expect(() => hangingAgent('h', { nmae: 'Stuck' } as never)).toThrow(/hangingAgent: details\.nmae is not a known option \(did you mean name\?\)/);
  });

  it('takes its abort listener off a shared signal when the caller leaves without aborting', () => {
    const agent = hangingAgent('h');
    const shared = new AbortController();
    for (let i = 0; i < 20; i++) from(agent.chat('hi', { signal: shared.signal })).subscribe().unsubscribe();
    expect(getEventListeners(shared.signal, 'abort')).toHaveLength(0);
    shared.abort();
    expect(agent.abortCount).toBe(0);
    // A caller that aborts before it leaves (as every agent call does) is still counted.
    const own = new AbortController();
    const subscription = from(agent.chat('hi', { signal: own.signal })).subscribe();
    own.abort();
    subscription.unsubscribe();
    expect(agent.abortCount).toBe(1);
  });

  it('counts a call whose signal is already aborted as aborted, with its reason', () => {
    const controller = new AbortController();
    const reason = new Error('cancelled before the call');
    controller.abort(reason);
    const agent = hangingAgent('h');

    from(agent.chat('hi', { signal: controller.signal })).subscribe({ error: () => undefined });

    expect(agent.callCount).toBe(1);
    expect(agent.abortCount).toBe(1);
    expect(agent.aborted).toBe(true);
    expect(agent.abortReasons).toEqual([reason]);
  });

  it.each([undefined, null, 42, {}])('%p as chat options, or a non-string input, is a ConfigError naming the argument (the Agent contract; stream and invoke always pass both)', (bad) => {
    const agent = hangingAgent('stuck');
    expect(() => agent.chat('hi', bad as never)).toThrow(ConfigError);
    expect(() => agent.chat('hi', bad as never)).toThrow(/^stuck.chat: options must be ChatOptions/);
    expect(() => agent.chat(bad as never, { signal: new AbortController().signal })).toThrow(/^stuck.chat: input must be a string/);
  });
});
