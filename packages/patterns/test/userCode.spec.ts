import { config, type Observable } from 'rxjs';
import { scriptedAgent } from '@rxagents/testing';
import {
  ChannelBackend,
  ChannelExecutionStrategy,
  ComposedAgent,
  ConversationOrchestrator,
  ConversationState,
  ExecutionModel,
  Patterns,
  TerminationCondition,
  TurnPolicy,
  runModel,
  type ExecutionResult,
  type PostedMessage,
} from '@rxagents/patterns';
import { StreamingChannel } from '@rxagents/streaming';
import { testScheduler } from './helpers';

const boom = new Error('boom');
/** A callback that works `times` times, then throws (so the throw happens after the run has gone asynchronous). */
function throwsAfter<A extends unknown[], R>(times: number, ok: (...args: A) => R): (...args: A) => R {
  let calls = 0;
  return (...args: A) => {
    calls += 1;
    if (calls > times) throw boom;
    return ok(...args);
  };
}
/** A callback that "forgets" to return after `times` calls. */
function forgetsAfter<A extends unknown[], R>(times: number, ok: (...args: A) => R): (...args: A) => R {
  let calls = 0;
  return (...args: A) => {
    calls += 1;
    return (calls > times ? undefined : ok(...args)) as R;
  };
}

interface Outcome {
  readonly error?: unknown;
  readonly final?: ExecutionResult<unknown> | { readonly type: string; readonly decision?: { readonly type: string; readonly error?: unknown } };
  readonly unhandled: unknown[];
}

/** Runs `run$` to its end on virtual time; reports how it ended and any error that escaped. */
function outcome(make: (scheduler: ReturnType<typeof testScheduler>) => Observable<unknown>): Outcome {
  const scheduler = testScheduler();
  const unhandled: unknown[] = [];
  const previous = config.onUnhandledError;
  config.onUnhandledError = (error) => unhandled.push(error);
  let error: unknown;
  let final: Outcome['final'];
  try {
    scheduler.run(() => {
      make(scheduler).subscribe({ next: (value) => (final = value as Outcome['final']), error: (e: unknown) => (error = e) });
    });
  } finally {
    config.onUnhandledError = previous;
  }
  return { error, final, unhandled };
}

/** The run ended visibly: it errored, or its final result failed; nothing escaped. */
function expectVisibleEnd(result: Outcome, expected: RegExp | Error = boom): void {
  expect(result.unhandled).toEqual([]);
  const final = result.final as { status?: string; error?: unknown; type?: string; decision?: { type: string; error?: unknown } } | undefined;
  const failure = result.error ?? (final?.status === 'failed' ? final.error : undefined) ?? (final?.type === 'finished' && final.decision?.type === 'failed' ? final.decision.error : undefined);
  if (expected instanceof Error) expect(failure).toBe(expected);
  else expect(String((failure as Error | undefined)?.message ?? failure)).toMatch(expected);
}

const slow = (id: string, reply = 'yes') => scriptedAgent(id, { reply, delay: 5 });

function model(overrides: Partial<Parameters<typeof ExecutionModel.create<number>>[0]> = {}) {
  const a = slow('a');
  return ExecutionModel.create<number>({
    pattern: 'count',
    agents: [a],
    initialState: () => 0,
    route: () => [a],
    prompt: (state) => String(state),
    aggregate: (state) => state + 1,
    termination: TerminationCondition.maxIterations(3),
    output: (state) => String(state),
    ...overrides,
  });
}

describe('user code that throws or forgets to return ends the run visibly', () => {
  describe('ExecutionModel phases (driver)', () => {
    it.each([
      ['route', { route: throwsAfter(1, () => [slow('a')]) }],
      ['prompt', { prompt: throwsAfter(1, (s: number) => String(s)) }],
      ['aggregate', { aggregate: throwsAfter(1, (s: number) => s + 1) }],
      ['output', { output: throwsAfter(1, (s: number) => String(s)) }],
      ['deadlocked', { deadlocked: () => { throw boom; } }],
      ['termination', { termination: TerminationCondition.of<number>('t', throwsAfter(1, () => ({ type: 'continue' as const }))) }],
    ] as const)('%s throws', (_name, overrides) => {
      expectVisibleEnd(outcome(() => runModel(model(overrides as never), 'go')));
    });

    it('route gives ids instead of agents: the run fails naming the route, rather than completing with every call failed under agentId undefined', () => {
      expectVisibleEnd(outcome(() => runModel(model({ route: () => ['a'] as never }), 'go')), /count: route gave "a" at iteration 0; return the agents to call \(AgentRefs, not their ids\)/);
    });

    it('route forgets to return', () => {
      expectVisibleEnd(outcome(() => runModel(model({ route: forgetsAfter(1, () => [slow('a')]) }), 'go')), /route.*undefined/);
    });

    it('output forgets to return', () => {
      expectVisibleEnd(outcome(() => runModel(model({ output: forgetsAfter(0, () => '') }), 'go')), /output.*undefined/);
    });

    it('deadlocked forgets to return', () => {
      expectVisibleEnd(outcome(() => runModel(model({ deadlocked: forgetsAfter(0, () => false) }), 'go')), /deadlocked.*undefined/);
    });

    it('a custom termination forgets to return', () => {
      expectVisibleEnd(outcome(() => runModel(model({ termination: TerminationCondition.of<number>('forgetful', forgetsAfter(1, () => ({ type: 'continue' as const }))) }), 'go')), /forgetful.*undefined/);
    });
  });

  describe('builders', () => {
    const cases: ReadonlyArray<readonly [string, () => { snapshots$(input: string): Observable<unknown> }]> = [
      ['debate prompt', () => Patterns.debate({ agents: [slow('a'), slow('b')], prompt: throwsAfter(1, () => 'p') })],
      ['debate judge predicate', () => Patterns.debate({ agents: [slow('a'), slow('b')], judge: slow('j'), judgeOptions: { predicate: () => { throw boom; } } })],
      ['debate judge prompt', () => Patterns.debate({ agents: [slow('a'), slow('b')], judge: slow('j'), judgeOptions: { prompt: () => { throw boom; } } })],
      ['voting aggregation', () => Patterns.voting({ agents: [slow('a'), slow('b')], aggregation: throwsAfter(1, () => ({ winner: undefined, reason: '' })) })],
      ['voting parseVote', () => Patterns.voting({ agents: [slow('a')], parseVote: () => { throw boom; } })],
      ['voting prompt', () => Patterns.voting({ agents: [slow('a'), slow('b')], concurrency: 1, prompt: throwsAfter(1, () => 'q') })],
      ['parallel merge', () => Patterns.parallel({ agents: [slow('a'), slow('b')], merge: throwsAfter(1, () => '') })],
      ['parallel prompt', () => Patterns.parallel({ agents: [slow('a'), slow('b')], concurrency: 1, prompt: throwsAfter(1, () => 'q') })],
      ['sequence prompt', () => Patterns.sequence({ agents: [slow('a'), slow('b')], prompt: throwsAfter(1, () => 'q') })],
      ['supervisor prompt', () => Patterns.supervisor({ supervisor: slow('lead', 'DELEGATE w: go'), workers: [slow('w')], prompt: throwsAfter(1, () => 'q') })],
    ];
    for (const mode of ['direct', 'channel'] as const) {
      it.each(cases)(`${mode}: %s throws`, (name, make) => {
        const builder = make() as { snapshots$(input: string): Observable<unknown>; overChannel?: () => { snapshots$(input: string): Observable<unknown> } };
        if (mode === 'channel' && builder.overChannel === undefined) return;
        const pattern = mode === 'direct' ? builder : (builder.overChannel as () => typeof builder).call(builder);
        // a throwing judge predicate is reported as the judge failing (the run fails with it)
        expectVisibleEnd(outcome(() => pattern.snapshots$('go')), name.startsWith('debate judge') ? boom : boom);
      });
    }

    it('voting parseVote forgets to return', () => {
      expectVisibleEnd(outcome(() => Patterns.voting({ agents: [slow('a')], parseVote: forgetsAfter(0, () => 'x') }).snapshots$('go')), /parseVote.*undefined/);
    });

    it('a judge predicate that forgets to return fails the run instead of never converging', () => {
      const debate = Patterns.debate({ agents: [slow('a'), slow('b')], maxRounds: 3, judge: slow('j'), judgeOptions: { predicate: forgetsAfter(0, () => true) } });
      expectVisibleEnd(outcome(() => debate.snapshots$('go')), /predicate.*undefined/);
    });
  });

  describe('conversations', () => {
    const orchestrate = (overrides: Partial<Parameters<typeof ConversationOrchestrator.create>[0]>) =>
      outcome(() =>
        ConversationOrchestrator.create({ participants: [slow('a'), slow('b')], termination: TerminationCondition.maxMessages(4), ...overrides }).conversation$('t', StreamingChannel.create<PostedMessage>()),
      );

    it('a custom turn policy throws', () => {
      expectVisibleEnd(orchestrate({ turnPolicy: TurnPolicy.custom('flaky', throwsAfter(1, () => ['a'])) }));
    });

    it('a custom turn policy that gives agents instead of their ids fails naming the policy (not "[object Object]" is not a participant)', () => {
      const a = slow('a');
      expectVisibleEnd(orchestrate({ participants: [a, slow('b')], turnPolicy: TurnPolicy.custom('agents', () => [a] as never) }), /turn policy "agents" gave \{"id":"a".*; return the ids of the next speakers/);
    });

    it('a custom turn policy that names one speaker twice in a turn fails naming the policy, rather than calling the speaker twice', () => {
      expectVisibleEnd(orchestrate({ turnPolicy: TurnPolicy.custom('echo', () => ['a', 'a']) }), /turn policy "echo" gave "a" twice in one turn; name each speaker once/);
    });

    it('a custom turn policy forgets to return', () => {
      expectVisibleEnd(orchestrate({ turnPolicy: TurnPolicy.custom('forgetful', forgetsAfter(1, () => ['a'])) }), /forgetful.*undefined/);
    });

    it('a prompt throws', () => {
      expectVisibleEnd(orchestrate({ prompt: throwsAfter(1, () => 'p') }));
    });

    it('a termination throws', () => {
      expectVisibleEnd(orchestrate({ termination: TerminationCondition.of<ConversationState>('t', throwsAfter(1, () => ({ type: 'continue' as const }))) }));
    });
  });

  describe('channel hooks and observers', () => {
    it('onChannel throws', () => {
      expectVisibleEnd(outcome(() => Patterns.voting({ agents: [slow('a')] }).overChannel({ onChannel: () => { throw boom; } }).snapshots$('go')));
    });

    it('a ComposedAgent stopWhen throws', () => {
      const panel = new ComposedAgent('panel', Patterns.voting({ agents: [slow('a'), slow('b')] }).build(), { stopWhen: throwsAfter(1, () => false) });
      expectVisibleEnd(outcome(() => panel.snapshots$('go')));
    });

    it('a ComposedAgent stopWhen forgets to return', () => {
      const panel = new ComposedAgent('panel', Patterns.voting({ agents: [slow('a'), slow('b')] }).build(), { stopWhen: forgetsAfter(0, () => false) });
      expectVisibleEnd(outcome(() => panel.snapshots$('go')), /stopWhen.*undefined/);
    });

    it('a debate output throws over a channel', () => {
      const debate = Patterns.debate({ agents: [slow('a'), slow('b')], prompt: () => 'p' }).overChannel();
      const base = debate.build();
      expectVisibleEnd(outcome(() => runModel({ ...base, output: throwsAfter(1, () => '') }, 'go')));
    });

    it('a projection (ConversationStrategy.project) throws', () => {
      const base = Patterns.debate({ agents: [slow('a'), slow('b')] }).build();
      const strategy = ChannelExecutionStrategy.conversation<ConversationState>({
        turnPolicy: TurnPolicy.roundRobin(),
        termination: TerminationCondition.maxMessages(4),
        project: throwsAfter(1, (state: ConversationState) => state),
      });
      expectVisibleEnd(outcome(() => runModel(ExecutionModel.withBackend(base, ChannelBackend(strategy)), 'go')));
    });

    it.each(['direct', 'channel'] as const)('%s: a voting aggregation whose winner is neither a string nor undefined (null for "no winner") fails the vote instead of completing it with output ""', (mode) => {
      const base = Patterns.voting({ agents: [slow('a'), slow('b', 'no')], aggregation: () => ({ winner: null as unknown as undefined, reason: 'no majority' }) });
      expectVisibleEnd(outcome(() => (mode === 'direct' ? base : base.overChannel()).execute$('go')), /aggregation gave \{"winner":null,"reason":"no majority"\}/);
    });

    it('a voting aggregation that forgets to return', () => {
      expectVisibleEnd(outcome(() => Patterns.voting({ agents: [slow('a')], aggregation: forgetsAfter(1, () => ({ winner: 'x', reason: 'r' })) }).execute$('go')), /aggregation.*undefined/);
    });
  });
});

describe('a prompt that forgets to return', () => {
  it.each(['direct', 'channel'] as const)('%s: fails the vote instead of every voter silently abstaining', (mode) => {
    const base = Patterns.voting({ agents: [slow('a'), slow('b')], prompt: forgetsAfter(0, () => 'q') });
    const vote = mode === 'direct' ? base : base.overChannel();
    expectVisibleEnd(outcome(() => vote.execute$('go')), /prompt.*undefined/);
  });

  it('a conversation prompt', () => {
    expectVisibleEnd(
      outcome(() =>
        ConversationOrchestrator.create({ participants: [slow('a')], termination: TerminationCondition.maxMessages(2), prompt: forgetsAfter(1, () => 'p') }).conversation$('t', StreamingChannel.create<PostedMessage>()),
      ),
      /prompt.*undefined/,
    );
  });
});

describe('a watcher attached with onChannel that throws', () => {
  it.each([
    ['voting', () => Patterns.voting({ agents: [slow('a'), slow('b')] })],
    ['parallel', () => Patterns.parallel({ agents: [slow('a'), slow('b')] })],
    ['debate', () => Patterns.debate({ agents: [slow('a'), slow('b')], maxRounds: 3 })],
  ] as const)('%s: fails the run with its error, closes the channel, reports nothing unhandled', (_name, make) => {
    let channel: { metrics(): { closed: boolean } } | undefined;
    const result = outcome(() =>
      make()
        .overChannel({
          onChannel: (opened) => {
            channel = opened;
            opened.subscribe(() => {
              throw boom;
            });
          },
        })
        .execute$('go'),
    );
    expectVisibleEnd(result);
    expect(channel?.metrics().closed).toBe(true);
  });
});

describe('a parallel merge that forgets to return', () => {
  it.each(['direct', 'channel'] as const)('%s: fails the run instead of an undefined output', (mode) => {
    const base = Patterns.parallel({ agents: [slow('a'), slow('b')], merge: forgetsAfter(0, () => '') });
    const work = mode === 'direct' ? base : base.overChannel();
    expectVisibleEnd(outcome(() => work.execute$('go')), /merge.*undefined/);
  });
});
