import { Observable, takeWhile } from 'rxjs';
import { type Agent, defineAgent } from '@rxagents/core';
import { scriptedAgent } from '@rxagents/testing';
import { ChannelBackend, ChannelExecutionStrategy, ComposedAgent, ConversationOrchestrator, ExecutionModel, Patterns, runModel, TerminationCondition, TurnPolicy, type PatternBuilder, type PostedMessage } from '@rxagents/patterns';
import { StreamingChannel } from '@rxagents/streaming';
import { testScheduler } from './helpers';

/** Agents that count their calls; `first` answers after 10 virtual ms, or synchronously, or only when aborted. */
function voters(first: 'slow' | 'sync' | 'answers-on-abort') {
  const started: string[] = [];
  const make = (id: string, body: (signal: AbortSignal) => Observable<string>): Agent =>
    defineAgent(id, (_input, { signal }) => {
      started.push(id);
      return body(signal);
    });
  const a =
    first === 'sync'
      ? make('a', () => new Observable<string>((s) => (s.next('yes'), s.complete())))
      : first === 'answers-on-abort'
        ? make('a', (signal) => new Observable<string>((s) => signal.addEventListener('abort', () => (s.next('late'), s.complete()))))
        : make('a', () => new Observable<string>((s) => void setTimeoutVirtual(s)));
  const rest = ['b', 'c'].map((id) => make(id, () => new Observable<string>((s) => (s.next('yes'), s.complete()))));
  return { agents: [a, ...rest], started };
}

let virtual: ReturnType<typeof testScheduler> | undefined;
function setTimeoutVirtual(s: { next(v: string): void; complete(): void }) {
  return virtual?.schedule(() => (s.next('yes'), s.complete()), 10);
}

type Make = (agents: readonly Agent[], extra: { timeout?: number }) => PatternBuilder<unknown>;
const patterns: ReadonlyArray<readonly [string, Make]> = [
  ['voting direct', (agents, extra) => Patterns.voting({ agents, concurrency: 1, ...extra }) as PatternBuilder<unknown>],
  ['voting over a channel (FanIn)', (agents, extra) => Patterns.voting({ agents, concurrency: 1, ...extra }).overChannel() as PatternBuilder<unknown>],
  ['parallel direct', (agents, extra) => Patterns.parallel({ agents, concurrency: 1, ...extra }) as PatternBuilder<unknown>],
  ['parallel over a channel (Barrier)', (agents, extra) => Patterns.parallel({ agents, concurrency: 1, ...extra }).overChannel() as PatternBuilder<unknown>],
];

describe('a cancelled run never starts a queued agent', () => {
  describe.each(patterns)('%s with concurrency 1', (_name, make) => {
    it('unsubscribing while the first agent works', () => {
      const scheduler = (virtual = testScheduler());
      const { agents, started } = voters('slow');
      scheduler.run(({ cold }) => {
        const subscription = make(agents, {}).snapshots$('?').subscribe();
        cold('5ms x').subscribe(() => subscription.unsubscribe());
      });
      expect(started).toEqual(['a']);
    });

    it('unsubscribing when the first agent is aborted makes it answer at once', () => {
      const scheduler = (virtual = testScheduler());
      const { agents, started } = voters('answers-on-abort');
      scheduler.run(({ cold }) => {
        const subscription = make(agents, {}).snapshots$('?').subscribe();
        cold('5ms x').subscribe(() => subscription.unsubscribe());
      });
      expect(started).toEqual(['a']);
    });

    it('an aborted execute() signal', async () => {
      virtual = undefined;
      const { agents, started } = voters('answers-on-abort');
      const controller = new AbortController();
      const run = make(agents, {}).execute('?', { signal: controller.signal });
      controller.abort(new Error('stop'));
      await expect(run).rejects.toThrow('stop');
      expect(started).toEqual(['a']);
    });

    it('the overall timeout passing while the first agent works', () => {
      const scheduler = (virtual = testScheduler());
      const { agents, started } = voters('answers-on-abort');
      scheduler.run(() => {
        make(agents, { timeout: 5 }).execute$('?').subscribe();
      });
      expect(started).toEqual(['a']);
    });

    it('a watcher that stops the run on the first (synchronous) answer', () => {
      virtual = undefined;
      // A Barrier shows nothing before every contributor has written: its first snapshot comes after all three.
      const expected = _name.includes('Barrier') ? ['a', 'b', 'c'] : ['a'];
      const { agents, started } = voters('sync');
      const snapshots: string[] = [];
      make(agents, {})
        .snapshots$('?')
        .pipe(takeWhile(() => false, true))
        .subscribe((snapshot) => snapshots.push(snapshot.status));
      expect(snapshots).toEqual(['running']);
      expect(started).toEqual(expected);
    });
  });

  it('a ComposedAgent stopped by stopWhen on its first snapshot starts nobody else', () => {
    const { agents, started } = voters('sync');
    const panel = new ComposedAgent('panel', Patterns.voting({ agents, concurrency: 1 }).build(), { stopWhen: () => true });
    panel.execute$('?').subscribe();
    expect(started).toEqual(['a']);
  });

  it('a custom model over a FanIn strategy with concurrency 1, cancelled', () => {
    const scheduler = (virtual = testScheduler());
    const { agents, started } = voters('answers-on-abort');
    const model = ExecutionModel.withBackend(Patterns.voting({ agents }).build(), ChannelBackend(ChannelExecutionStrategy.fanIn({ concurrency: 1 })));
    scheduler.run(({ cold }) => {
      const subscription = runModel(model, '?').subscribe();
      cold('5ms x').subscribe(() => subscription.unsubscribe());
    });
    expect(started).toEqual(['a']);
  });

  it('a debate whose first speaker fails never calls the next one', async () => {
    const started: string[] = [];
    const failing = defineAgent('a', async () => {
      started.push('a');
      throw new Error('down');
    });
    const b = defineAgent('b', async () => {
      started.push('b');
      return 'x';
    });
    const result = await Patterns.debate({ agents: [failing, b] }).execute('?');
    expect(result.status).toBe('failed');
    expect(started).toEqual(['a']);
    void scriptedAgent;
  });

  describe('a free-for-all conversation with concurrency 1', () => {
    const orchestrator = (agents: readonly Agent[]) =>
      ConversationOrchestrator.create({ participants: agents, turnPolicy: TurnPolicy.freeForAll(), concurrency: 1, termination: TerminationCondition.maxMessages(9) });

    it('unsubscribed while the first speaker works', () => {
      const scheduler = (virtual = testScheduler());
      const { agents, started } = voters('answers-on-abort');
      scheduler.run(({ cold }) => {
        const subscription = orchestrator(agents).conversation$('t', StreamingChannel.create<PostedMessage>()).subscribe();
        cold('5ms x').subscribe(() => subscription.unsubscribe());
      });
      expect(started).toEqual(['a']);
    });

    it('stopped by a watcher on the first message', () => {
      virtual = undefined;
      const { agents, started } = voters('sync');
      orchestrator(agents).conversation$('t', StreamingChannel.create<PostedMessage>()).pipe(takeWhile(() => false, true)).subscribe();
      expect(started).toEqual(['a']);
    });
  });
});
