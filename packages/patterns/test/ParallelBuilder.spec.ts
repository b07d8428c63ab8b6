import { map } from 'rxjs';
import { failingAgent, scriptedAgent } from '@rxagents/testing';
import { Patterns } from '@rxagents/patterns';
import { testScheduler } from './helpers';

describe('Patterns.parallel', () => {
  it('over a channel, the barrier waits for its slowest contributor before anything is aggregated', () => {
    testScheduler().run(({ expectObservable }) => {
      const agents = [scriptedAgent('fast', { reply: 'f', delay: 5 }), scriptedAgent('slowest', { reply: 's', delay: 40 }), scriptedAgent('mid', { reply: 'm', delay: 20 })];
      const snapshots$ = Patterns.parallel({ agents })
        .overChannel()
        .snapshots$('review')
        .pipe(map((r) => `${r.status}:${r.state.contributions.length}`));
      expectObservable(snapshots$).toBe('40ms (ab|)', { a: 'running:3', b: 'completed:3' });
    });
  });

  it('keeps contributions in agent order whatever order they finish in, in both modes', async () => {
    const agents = [scriptedAgent('legal', { reply: 'ok', delay: 3 }), scriptedAgent('security', 'pen test'), failingAgent('ux', new Error('no reply'), { mode: 'reject' })];
    const direct = await Patterns.parallel({ agents }).execute('launch');
    const channel = await Patterns.parallel({ agents }).overChannel().execute('launch');
    expect(direct.output).toBe('legal: ok\nsecurity: pen test\nux: (failed: Agent "ux" failed: no reply)');
    expect(channel.output).toBe(direct.output);
    expect(channel.status).toBe('completed');
  });

  it('opens the gate at the overall timeout, recording who had not written', () => {
    testScheduler().run(({ expectObservable }) => {
      const agents = [scriptedAgent('a', { reply: 'a', delay: 5 }), scriptedAgent('late', { reply: 'l', delay: 500 })];
      const result$ = Patterns.parallel({ agents, timeout: 100 })
        .overChannel()
        .execute$('x')
        .pipe(map((r) => r.state.contributions.map((c) => `${c.agentId}:${c.success ? 'ok' : c.timedOut ? 'timeout' : 'failed'}`).join(',')));
      expectObservable(result$).toBe('100ms (r|)', { r: 'a:ok,late:timeout' });
    });
  });
});
