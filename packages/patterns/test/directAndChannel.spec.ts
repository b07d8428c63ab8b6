import { type Observable, toArray } from 'rxjs';
import { hangingAgent, scriptedAgent } from '@rxagents/testing';
import { type ExecutionResult, Patterns } from '@rxagents/patterns';
import { debater, testScheduler } from './helpers';

/** Every field of a result but `mode`, as plain data (lazily built arrays read). */
const fields = (result: ExecutionResult<unknown>): Record<string, unknown> => {
  const { mode: _mode, ...rest } = result;
  return rest;
};

/** What the test needs of a pattern builder, for any state type. */
interface Observable$ {
  snapshots$(input: string): Observable<ExecutionResult<unknown>>;
}

/** Runs `direct` and `channel` on the same input, each on its own virtual clock from 0; gives each run's snapshots. */
function bothWays(direct: Observable$, channel: Observable$, input: string): [ExecutionResult<unknown>[], ExecutionResult<unknown>[]] {
  const run = (builder: Observable$): ExecutionResult<unknown>[] => {
    let snapshots: ExecutionResult<unknown>[] = [];
    testScheduler().run(({ flush }) => {
      builder.snapshots$(input).pipe(toArray()).subscribe((all) => (snapshots = all));
      flush();
    });
    return snapshots;
  };
  return [run(direct), run(channel)];
}

const failsOn = (id: string, pattern: RegExp, delay = 4) =>
  scriptedAgent(id, (input) => (pattern.test(input) ? { error: new Error(`${id} broke`), delay } : { reply: `${id} says yes`, delay }));

interface Case {
  readonly name: string;
  readonly make: (failing: boolean) => { direct: Observable$; channel: Observable$ };
  /** Whether the two modes emit the same running snapshots too (a barrier releases all results in one). */
  readonly sameSnapshots: boolean;
}

const cases: Case[] = [
  {
    name: 'debate',
    sameSnapshots: true,
    make: (failing) => {
      const options = { agents: [debater('pro', 3), failing ? failsOn('con', /Round 2/) : debater('con', 4)], maxRounds: 3 };
      return { direct: Patterns.debate(options), channel: Patterns.debate(options).overChannel() };
    },
  },
  {
    name: 'voting',
    sameSnapshots: true,
    make: (failing) => {
      const options = { agents: [scriptedAgent('a', { reply: 'yes', delay: 3 }), failing ? failsOn('b', /./, 5) : scriptedAgent('b', { reply: 'no', delay: 5 }), scriptedAgent('c', { reply: 'yes', delay: 7 })] };
      return { direct: Patterns.voting(options), channel: Patterns.voting(options).overChannel() };
    },
  },
  {
    name: 'parallel',
    sameSnapshots: false,
    make: (failing) => {
      const options = { agents: [scriptedAgent('legal', { reply: 'ok', delay: 6 }), failing ? failsOn('security', /./, 2) : scriptedAgent('security', { reply: 'pen test', delay: 2 })] };
      return { direct: Patterns.parallel(options), channel: Patterns.parallel(options).overChannel() };
    },
  },
  {
    name: 'sequence',
    sameSnapshots: true,
    make: (failing) => {
      const steps = [scriptedAgent('draft', { reply: 'draft', delay: 3 }), failing ? failsOn('edit', /./) : scriptedAgent('edit', { reply: 'edited', delay: 4 }), scriptedAgent('publish', { reply: 'published', delay: 2 })];
      return { direct: Patterns.sequence({ agents: steps }), channel: Patterns.sequence({ agents: steps }).overChannel() };
    },
  },
  {
    name: 'supervisor',
    sameSnapshots: true,
    make: (failing) => {
      const lead = scriptedAgent('lead', (input) => (/researcher <-/.test(input) ? { reply: 'FINAL: done', delay: 1 } : { reply: 'DELEGATE researcher: dig', delay: 1 }));
      const researcher = failing ? failsOn('researcher', /./, 5) : scriptedAgent('researcher', { reply: 'found it', delay: 5 });
      const options = { supervisor: lead, workers: [researcher] };
      return { direct: Patterns.supervisor(options), channel: Patterns.supervisor(options).overChannel() };
    },
  },
];

describe('direct and channel runs of the same pattern agree', () => {
  for (const { name, make, sameSnapshots } of cases) {
    for (const failing of [false, true]) {
      it(`${name}, ${failing ? 'with a failing agent' : 'every agent answering'}: the same result${sameSnapshots ? ' and the same snapshots' : ''}`, () => {
        const { direct, channel } = make(failing);
        const [directRun, channelRun] = bothWays(direct, channel, 'Ship it?');
        const directFinal = directRun.at(-1) as ExecutionResult<unknown>;
        const channelFinal = channelRun.at(-1) as ExecutionResult<unknown>;
        expect([directFinal.mode, channelFinal.mode]).toEqual(['direct', 'channel']);
        expect(directFinal.status).toBe(failing && name !== 'voting' && name !== 'parallel' ? 'failed' : directFinal.status);
        expect(fields(channelFinal)).toEqual(fields(directFinal));
        if (sameSnapshots) expect(channelRun.map(fields)).toEqual(directRun.map(fields));
      });
    }
  }

  const timeoutCases: { name: string; make: () => { direct: Observable$; channel: Observable$ } }[] = [
    { name: 'debate', make: () => ({ direct: Patterns.debate({ agents: [debater('pro', 3), hangingAgent('con')], timeout: 20 }), channel: Patterns.debate({ agents: [debater('pro', 3), hangingAgent('con')], timeout: 20 }).overChannel() }) },
    { name: 'voting', make: () => ({ direct: Patterns.voting({ agents: [scriptedAgent('a', { reply: 'yes', delay: 3 }), hangingAgent('b')], agentTimeout: 10 }), channel: Patterns.voting({ agents: [scriptedAgent('a', { reply: 'yes', delay: 3 }), hangingAgent('b')], agentTimeout: 10 }).overChannel() }) },
    { name: 'parallel', make: () => ({ direct: Patterns.parallel({ agents: [scriptedAgent('a', { reply: 'ok', delay: 3 }), hangingAgent('b')], timeout: 15 }), channel: Patterns.parallel({ agents: [scriptedAgent('a', { reply: 'ok', delay: 3 }), hangingAgent('b')], timeout: 15 }).overChannel() }) },
    { name: 'sequence', make: () => ({ direct: Patterns.sequence({ agents: [scriptedAgent('a', { reply: 'ok', delay: 3 }), hangingAgent('b')], agentTimeout: 10 }), channel: Patterns.sequence({ agents: [scriptedAgent('a', { reply: 'ok', delay: 3 }), hangingAgent('b')], agentTimeout: 10 }).overChannel() }) },
    { name: 'supervisor', make: () => ({ direct: Patterns.supervisor({ supervisor: scriptedAgent('lead', { reply: 'DELEGATE w: go', delay: 2 }), workers: [hangingAgent('w')], timeout: 30 }), channel: Patterns.supervisor({ supervisor: scriptedAgent('lead', { reply: 'DELEGATE w: go', delay: 2 }), workers: [hangingAgent('w')], timeout: 30 }).overChannel() }) },
  ];
  for (const { name, make } of timeoutCases) {
    it(`${name}, with an agent that never answers (timed out): the same result${name === 'parallel' ? '' : ' and snapshots'}`, () => {
      const { direct, channel } = make();
      const [directRun, channelRun] = bothWays(direct, channel, 'Ship it?');
      expect((directRun.at(-1) as ExecutionResult<unknown>).results.some((result) => !result.success)).toBe(true);
      // A Barrier (parallel over a channel) releases every result in one snapshot.
      if (name === 'parallel') expect(fields(channelRun.at(-1) as ExecutionResult<unknown>)).toEqual(fields(directRun.at(-1) as ExecutionResult<unknown>));
      else expect(channelRun.map(fields)).toEqual(directRun.map(fields));
    });
  }

  it('counts a debate round in which a debater failed as not completed, both ways', () => {
    const { direct, channel } = cases[0]?.make(true) as ReturnType<Case['make']>;
    const [[...directRun], [...channelRun]] = bothWays(direct, channel, 'Ship it?');
    expect([directRun.at(-1)?.iterations, channelRun.at(-1)?.iterations]).toEqual([1, 1]);
    expect(directRun.map((snapshot) => snapshot.iterations)).toEqual([0, 1, 1, 1]);
  });
});
