import { from, lastValueFrom } from 'rxjs';
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
});
