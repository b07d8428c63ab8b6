import { of } from 'rxjs';
import { defineAgent, lastValue } from '@rxagents/core';
import { Patterns } from '@rxagents/patterns';

// Agents that answer synchronously must not deepen the stack per iteration: a loop that nests each
// iteration inside the previous one overflowed (silently, with no result) after about 150 steps.
describe('OrchestratedDriver with synchronous agents', () => {
  it('runs a 3,000-step sequence in constant stack', async () => {
    const agents = Array.from({ length: 3000 }, (_, i) => defineAgent(`step-${i}`, (input) => of(i === 0 ? '0' : `${Number(input) + 1}`)));
    const result = await lastValue(Patterns.sequence({ agents }).execute$('start'));
    expect(result.status).toBe('completed');
    expect(result.output).toBe('2999');
  });

  it('runs a 500-round direct debate in constant stack', async () => {
    const agents = ['a', 'b'].map((id) => defineAgent(id, () => of(`${id} agrees`)));
    const result = await lastValue(Patterns.debate({ agents, maxRounds: 500 }).execute$('topic'));
    expect(result.iterations).toBe(500);
    expect(result.state.messages).toHaveLength(1000);
  });

  it('runs a 500-round debate over a channel in constant stack', async () => {
    const agents = ['a', 'b'].map((id) => defineAgent(id, () => of(`${id} agrees`)));
    const result = await lastValue(Patterns.debate({ agents, maxRounds: 500 }).overChannel().execute$('topic'));
    expect(result.iterations).toBe(500);
    expect(result.state.messages).toHaveLength(1000);
  });
});
