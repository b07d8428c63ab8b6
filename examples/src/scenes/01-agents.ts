import { asapScheduler, merge, map } from 'rxjs';
import { stream, lastValue } from '@rxagents/core';
import { scriptedAgent } from '@rxagents/testing';
import type { Scene } from '../Scene';

/** Two scripted agents stream their replies at once, on the real clock; chunks interleave as they arrive. */
export const scene: Scene = {
  name: 'agents',
  title: 'two agents stream their replies live (invoke on the real clock)',
  async run() {
    const poet = scriptedAgent('poet', {
      chunks: ['Streams ', 'of ', 'tokens ', 'flow, ', 'one ', 'by ', 'one.'],
      delay: 60,
      interval: 90,
    });
    const critic = scriptedAgent('critic', {
      chunks: ['A ', 'fine ', 'line, ', 'if ', 'a ', 'little ', 'slow.'],
      delay: 100,
      interval: 120,
    });
    const started = asapScheduler.now();
    const transcript = { poet: '', critic: '' };
    const live$ = merge(
      stream(poet, 'Write one line about streaming').pipe(map((chunk) => ({ who: 'poet' as const, chunk }))),
      stream(critic, 'Review it').pipe(map((chunk) => ({ who: 'critic' as const, chunk }))),
    ).pipe(
      map(({ who, chunk }) => {
        transcript[who] += chunk;
        const ms = String(asapScheduler.now() - started).padStart(5);
        console.log(`${ms} ms  ${who.padEnd(6)} +${JSON.stringify(chunk)}`);
        return transcript;
      }),
    );
    await lastValue(live$);
    console.log(`poet:   ${transcript.poet}`);
    console.log(`critic: ${transcript.critic}`);
  },
};
