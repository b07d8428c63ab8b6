import { map } from 'rxjs';
import { failingAgent, scriptedAgent } from '@rxagents/testing';
import { Patterns } from '@rxagents/patterns';
import { testScheduler } from './helpers';

describe('Patterns.sequence', () => {
  it('passes each output to the next step', () => {
    testScheduler().run(({ expectObservable }) => {
      const draft = scriptedAgent('draft', (input) => ({ reply: `draft(${input})`, delay: 5 }));
      const edit = scriptedAgent('edit', (input) => ({ reply: `edit(${input})`, delay: 5 }));
      expectObservable(Patterns.sequence({ agents: [draft, edit] }).run('otters').pipe(map((r) => `${r.status}:${r.output}`))).toBe('10ms (r|)', {
        r: 'completed:edit(draft(otters))',
      });
    });
  });

  it('stops at the first failing step', async () => {
    const after = scriptedAgent('after', 'never');
    const result = await Patterns.sequence({ agents: [failingAgent('first'), after] }).execute('x');
    expect([result.status, after.inputs.length]).toEqual(['failed', 0]);
  });
});
