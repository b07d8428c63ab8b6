import { defineAgent, runEventStream, type RunEvent } from '@rxagents/core';
import { observeChoreography } from '@rxagents/choreography';
import { articleSpec } from './fixtures';

describe('a choreography read by a slow reader (runEventStream)', () => {
  it('pace: the next interaction waits for the reader, and every event arrives', async () => {
    const started: string[] = [];
    const spec = articleSpec();
    const agent = (id: string) => defineAgent(id, async () => (started.push(id), `${id} done`));
    const stream = runEventStream((pace) => observeChoreography({ spec, agents: { researcher: agent('researcher'), writer: agent('writer') }, input: 'otters', pace }), {
      bufferSize: 1,
    });
    const reader = stream.getReader();
    for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
    expect(started).toEqual([]);
    reader.releaseLock();
    const events: RunEvent[] = [];
    for await (const event of stream) events.push(event);
    expect(started).toEqual(['researcher', 'writer']);
    expect(events.filter((event) => event.type === 'step')).toHaveLength(2);
    expect(events.at(-1)).toMatchObject({ type: 'run-end', success: true });
  });
});
