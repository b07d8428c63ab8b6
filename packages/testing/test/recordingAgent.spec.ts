import { from, lastValueFrom } from 'rxjs';
import { ConfigError } from '@rxagents/core';
import { recordingAgent } from '@rxagents/testing';

describe('recordingAgent', () => {
  it('refuses a blank id, an inner that is neither an agent nor a function, and unknown details', () => {
    expect(() => recordingAgent(' ')).toThrow(/recordingAgent: id must be a non-blank string/);
    expect(() => recordingAgent('r', 'not an agent' as never)).toThrow(/recordingAgent: inner must be an agent \(with chat\) or a function/);
    expect(() => recordingAgent('r', async () => 'ok', { rol: 'Writer' } as never)).toThrow(/recordingAgent: details\.rol is not a known option \(did you mean role\?\)/);
  });

  it('records a call whose signal is already aborted but never starts the inner agent', async () => {
    const controller = new AbortController();
    controller.abort(new Error('gone'));
    let started = 0;
    const agent = recordingAgent('r', async () => {
      started += 1;
      return 'ok';
    });

    const error = await lastValueFrom(from(agent.chat('task', { signal: controller.signal }))).catch((e: unknown) => e);

    expect(error).toEqual(new Error('gone'));
    expect(started).toBe(0);
    expect(agent.inputs).toEqual(['task']);
    expect(agent.abortCount).toBe(1);
  });

  it.each([undefined, null, 42, {}])('%p as chat options, or a non-string input, is a ConfigError naming the argument (the Agent contract; stream and invoke always pass both)', (bad) => {
    const agent = recordingAgent('recorder');
    expect(() => agent.chat('hi', bad as never)).toThrow(ConfigError);
    expect(() => agent.chat('hi', bad as never)).toThrow(/^recorder.chat: options must be ChatOptions/);
    expect(() => agent.chat(bad as never, { signal: new AbortController().signal })).toThrow(/^recorder.chat: input must be a string/);
  });
});
