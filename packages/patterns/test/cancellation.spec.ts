import { hangingAgent, scriptedAgent } from '@rxagents/testing';
import { Patterns, type PatternChannel } from '@rxagents/patterns';
import { debater, pendingActions, testScheduler } from './helpers';

describe('cancelling a run', () => {
  for (const mode of ['direct', 'channel'] as const) {
    it(`${mode}: unsubscribing mid-turn aborts the speaking agent and leaves no timers`, () => {
      const scheduler = testScheduler();
      const alice = debater('alice', 10);
      const bob = debater('bob', 30);
      const judge = scriptedAgent('judge', { reply: 'CONTINUE', delay: 5 });
      let channel: PatternChannel | undefined;
      const base = Patterns.debate({ agents: [alice, bob], judge, agentTimeout: 1_000, timeout: 60_000 });
      const debate = mode === 'direct' ? base : base.overChannel({ onChannel: (c) => (channel = c) });
      let pendingAfterCancel = -1;
      let emitted = 0;
      scheduler.run(({ cold }) => {
        const subscription = debate.snapshots$('t').subscribe(() => (emitted += 1));
        // alice speaks at 10; bob is mid-turn (answers at 40) when we cancel at 25.
        cold('25ms x').subscribe(() => {
          subscription.unsubscribe();
          pendingAfterCancel = pendingActions(scheduler);
        });
      });
      expect(emitted).toBe(1);
      expect(bob.calls).toHaveLength(1);
      expect(bob.calls[0]?.options.signal.aborted).toBe(true);
      expect(bob.abortCount).toBe(1);
      expect(judge.inputs).toHaveLength(0);
      // Nothing left to fire: the agent's reply, its 1 s timeout and the run's 60 s timeout are cleared.
      expect(pendingAfterCancel).toBe(0);
      if (mode === 'channel') expect(channel?.metrics().closed).toBe(true);
    });
  }

  it('aborts every voter in flight when a vote is cancelled through execute({ signal })', async () => {
    const voters = [hangingAgent('a'), hangingAgent('b'), hangingAgent('c')];
    const controller = new AbortController();
    const pending = Patterns.voting({ agents: voters }).overChannel().execute('?', { signal: controller.signal });
    controller.abort(new Error('user gave up'));
    await expect(pending).rejects.toThrow('user gave up');
    expect(voters.map((voter) => voter.aborted)).toEqual([true, true, true]);
  });
});
