import { map } from 'rxjs';
import { failingAgent, scriptedAgent } from '@rxagents/testing';
import { Patterns, type ExecutionResult, type SequenceState } from '@rxagents/patterns';
import { countLargeArrayCopies, testScheduler } from './helpers';

describe('Patterns.sequence', () => {
  it('passes each output to the next step', () => {
    testScheduler().run(({ expectObservable }) => {
      const draft = scriptedAgent('draft', (input) => ({ reply: `draft(${input})`, delay: 5 }));
      const edit = scriptedAgent('edit', (input) => ({ reply: `edit(${input})`, delay: 5 }));
      expectObservable(Patterns.sequence({ agents: [draft, edit] }).execute$('otters').pipe(map((r) => `${r.status}:${r.output}`))).toBe('10ms (r|)', {
        r: 'completed:edit(draft(otters))',
      });
    });
  });

  it('over a channel, a message from someone else on the run\'s channel is neither a step nor its output: every step runs, on the previous step\'s output', async () => {
    const steps = ['draft', 'edit', 'publish'].map((id) => scriptedAgent(id, (input: string) => `${id}(${input})`));
    const result = await Patterns.sequence({ agents: steps })
      .overChannel({ onChannel: (channel) => channel.subscribe((message) => void (message.speaker === 'draft' && channel.emit({ speaker: 'reader', content: 'nice', at: message.at }))) })
      .execute('otters');
    expect([result.status, result.output, result.iterations, result.state.outputs.map((output) => output.agentId)]).toEqual([
      'completed',
      'publish(edit(draft(otters)))',
      3,
      ['draft', 'edit', 'publish'],
    ]);
  });

  it('over a channel, posts each step\'s output on the run\'s channel', async () => {
    const seen: string[] = [];
    const steps = [scriptedAgent('draft', (input: string) => `draft(${input})`), scriptedAgent('edit', (input: string) => `edit(${input})`)];
    const result = await Patterns.sequence({ agents: steps })
      .overChannel({ onChannel: (channel) => channel.subscribe((item: unknown) => void seen.push(JSON.stringify(item))) })
      .execute('otters');
    expect([result.mode, result.status, result.output, result.iterations]).toEqual(['channel', 'completed', 'edit(draft(otters))', 2]);
    expect(seen.map((item) => JSON.parse(item).content)).toEqual(['draft(otters)', 'edit(draft(otters))']);
  });

  it('stops at the first failing step', async () => {
    const after = scriptedAgent('after', 'never');
    const result = await Patterns.sequence({ agents: [failingAgent('first'), after] }).execute('x');
    expect([result.status, after.inputs.length]).toEqual(['failed', 0]);
  });
});

describe('Patterns.sequence snapshots', () => {
  it('copies no output per step: 2,000 steps, each snapshot reads as it was', () => {
    const agents = Array.from({ length: 2_000 }, (_, index) => scriptedAgent(`s${index}`, (input: string) => `${input.length}`));
    const snapshots: ExecutionResult<SequenceState>[] = [];
    const copies = countLargeArrayCopies(1_000, () => {
      Patterns.sequence({ agents }).snapshots$('x').subscribe((snapshot) => snapshots.push(snapshot));
    });
    // Building the pattern copies its 2,000-agent list a couple of times; a copy per step would be ~1,000 more.
    expect(copies).toBeLessThanOrEqual(2);
    expect(snapshots).toHaveLength(2_001);
    expect(snapshots[9]?.state.outputs).toHaveLength(10);
    expect((snapshots.at(-1) as ExecutionResult<SequenceState>).state.outputs.map((o) => o.agentId)).toEqual(agents.map((a) => a.id));
    expect(Object.isFrozen(snapshots[9]?.state.outputs)).toBe(true);
  });
});
