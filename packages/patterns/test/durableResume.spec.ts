import fc from 'fast-check';
import { scriptedAgent } from '@rxagents/testing';
import { StreamingChannel } from '@rxagents/streaming';
import { ConversationOrchestrator, Patterns, TerminationCondition, TurnPolicy, type PostedMessage } from '@rxagents/patterns';
import { resumeFromEveryCut, resumeFromEveryTwoCuts, type ResumeCheck, type Scenario, type ScenarioContext } from '../../../test/support/durableResume';

// Each spec runs a whole run once per cut of its journal (hundreds of runs): more than jest's default 5 s on a
// loaded machine, whatever the code's speed.
jest.setTimeout(60_000);

// Every spec here runs a pattern once with a store, then resumes it from each cut of its journal (the
// first k records, for every k) and checks what a resumed run gives: the uninterrupted run's result and
// event tree (see eventTree: timings removed, interrupted attempts dropped, nodes by place key), and each
// agent called once for each of its calls that had not ended in the cut journal.

type Checks = Awaited<ReturnType<typeof resumeFromEveryCut>>;

/** Every resume gave what it had to (`without` leaves checks out: see the failing specs below). */
function expectEveryResume(checks: Checks, without: readonly (keyof ResumeCheck)[] = []): void {
  const shown = (check: ResumeCheck) => Object.fromEntries(Object.entries(check).filter(([key]) => !without.includes(key as keyof ResumeCheck)));
  for (const { actual, expected } of checks.resumes) expect(shown(actual)).toEqual(shown(expected));
}

/** A debater answering `<id> r<round>` in two chunks after `delay` virtual ms. */
const debaterOn = ({ scheduler, calls }: ScenarioContext, id: string, delay: number) =>
  calls.count(scriptedAgent(id, (input) => ({ chunks: [`${id} `, `r${/Round (\d+)/.exec(input)?.[1] ?? 0}`], delay, interval: 1 }), { scheduler }));

const debate = (latencies: readonly [number, number], channel: boolean): Scenario => (context) => {
  const { scheduler } = context;
  const builder = Patterns.debate({ agents: [debaterOn(context, 'pro', latencies[0]), debaterOn(context, 'con', latencies[1])], maxRounds: 2, scheduler });
  const pattern = channel ? builder.overChannel() : builder;
  return ({ store, runId }) => pattern.events$('Release today?', { store, runId });
};

/** A supervisor that delegates once to a debate panel (a ComposedAgent over its own channel), then answers. */
const supervised: Scenario = (context) => {
  const { scheduler, calls } = context;
  const panel = Patterns.debate({ agents: [debaterOn(context, 'optimist', 3), debaterOn(context, 'skeptic', 2)], maxRounds: 2, scheduler })
    .overChannel()
    .asAgent('panel', { role: 'debate panel' });
  const lead = calls.count(
    scriptedAgent('lead', (input) => (/optimist r1/.test(input) ? { reply: 'FINAL: the panel agrees', delay: 1 } : { reply: 'DELEGATE panel: Should we adopt RxJS 8?', delay: 2 }), { scheduler }),
  );
  const supervisor = Patterns.supervisor({ supervisor: lead, workers: [calls.count(panel)], scheduler });
  return ({ store, runId }) => supervisor.events$('Decide on the RxJS upgrade', { store, runId });
};

/** Parallel work of agents with the given latencies, merged in the agents' order. */
const parallel = (latencies: readonly number[], concurrency: number): Scenario => (context) => {
  const { scheduler } = context;
  const work = Patterns.parallel({ agents: latencies.map((delay, index) => debaterOn(context, `worker-${index}`, delay)), concurrency, scheduler });
  return ({ store, runId }) => work.events$('Split the report', { store, runId });
};

/** A free-for-all conversation over a channel: every participant answers each turn, `concurrency` at once. */
const freeForAll = (latencies: readonly number[], concurrency: number): Scenario => (context) => {
  const { scheduler } = context;
  const orchestrator = ConversationOrchestrator.create({
    participants: latencies.map((delay, index) => debaterOn(context, `voice-${index}`, delay)),
    turnPolicy: TurnPolicy.freeForAll(),
    termination: TerminationCondition.maxMessages(2 * latencies.length + 1),
    concurrency,
    scheduler,
  });
  return ({ store, runId }) => orchestrator.events$('Plan the week', StreamingChannel.create<PostedMessage>({ id: 'standup', scheduler }), { store, runId });
};

/** Each of the five patterns, directly or over a channel, on agents that finish in the order they start. */
const fivePatterns = (name: 'debate' | 'sequence' | 'voting' | 'parallel' | 'supervisor', channel: boolean): Scenario => (context) => {
  const { scheduler, calls } = context;
  const three = () => [debaterOn(context, 'a', 1), debaterOn(context, 'b', 2), debaterOn(context, 'c', 3)];
  const voter = (id: string, delay: number) => calls.count(scriptedAgent(id, { reply: 'yes', delay }, { scheduler }));
  const lead = calls.count(scriptedAgent('lead', (input) => (/a r0/.test(input) ? { reply: 'FINAL: done', delay: 1 } : { reply: 'DELEGATE a: dig', delay: 1 }), { scheduler }));
  const builders = {
    debate: () => Patterns.debate({ agents: three(), maxRounds: 2, scheduler }),
    sequence: () => Patterns.sequence({ agents: three(), scheduler }),
    voting: () => Patterns.voting({ agents: [voter('v1', 1), voter('v2', 2), voter('v3', 3)], scheduler }),
    parallel: () => Patterns.parallel({ agents: three(), scheduler }),
    supervisor: () => Patterns.supervisor({ supervisor: lead, workers: three(), scheduler }),
  };
  const builder = builders[name]();
  const pattern = channel ? builder.overChannel() : builder;
  return ({ store, runId }) => pattern.events$('Ship it?', { store, runId });
};

describe('durable patterns resume from any cut of their journal', () => {
  it.each([
    ['debate', false],
    ['debate', true],
    ['sequence', false],
    ['sequence', true],
    ['voting', false],
    ['voting', true],
    ['parallel', false],
    ['parallel', true],
    ['supervisor', false],
    ['supervisor', true],
  ] as const)('%s (over a channel: %s), every cut', async (name, channel) => {
    const checks = await resumeFromEveryCut(fivePatterns(name, channel));
    expect(checks.expected.result).toMatchObject({ success: true });
    expect(checks.resumes.length).toBe(checks.expected.k);
    expectEveryResume(checks);
  });

  it('a ComposedAgent on its own (its events$), every cut', async () => {
    const composed: Scenario = (context) => {
      const panel = Patterns.debate({ agents: [debaterOn(context, 'pro', 2), debaterOn(context, 'con', 1)], maxRounds: 2, scheduler: context.scheduler }).asAgent('panel');
      return ({ store, runId }) => panel.events$('Release today?', { store, runId });
    };
    const checks = await resumeFromEveryCut(composed);
    expect(checks.expected.result).toMatchObject({ success: true });
    expectEveryResume(checks);
  });

  it('a debate over a channel, with random latencies', async () => {
    await fc.assert(
      fc.asyncProperty(fc.tuple(fc.integer({ min: 0, max: 9 }), fc.integer({ min: 0, max: 9 })), async (latencies) => {
        const checks = await resumeFromEveryCut(debate(latencies, true));
        expect(checks.expected.result).toMatchObject({ success: true });
        expect(checks.resumes.length).toBe(checks.expected.k);
        expectEveryResume(checks);
      }),
      { numRuns: 10 },
    );
  });

  it('a debate over a channel resumed, cut again anywhere in the resumed journal and resumed again (every pair of cuts)', async () => {
    expectEveryResume(await resumeFromEveryTwoCuts(debate([2, 1], true)));
  });

  it('a supervisor with a nested debate resumed twice: result and calls (every pair of cuts)', async () => {
    expectEveryResume(await resumeFromEveryTwoCuts(supervised), ['tree']);
  });

  it('a debate, directly (every cut)', async () => {
    const checks = await resumeFromEveryCut(debate([3, 2], false));
    expect(checks.expected.result).toMatchObject({ success: true });
    expect(checks.resumes.length).toBe(checks.expected.k);
    expectEveryResume(checks);
  });

  it('a supervisor delegating to a nested debate (a ComposedAgent over a channel): result and calls (48 cuts)', async () => {
    const checks = await resumeFromEveryCut(supervised);
    expect(checks.expected.result).toMatchObject({ success: true, output: 'the panel agrees' });
    expect(checks.resumes).toHaveLength(48);
    expectEveryResume(checks, ['tree']);
  });

  it('a supervisor delegating to a nested debate: the event tree too (48 cuts)', async () => {
    expectEveryResume(await resumeFromEveryCut(supervised));
  });

  it('parallel work with random latencies under a concurrency limit: result and calls', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.integer({ min: 0, max: 9 }), { minLength: 2, maxLength: 4 }), fc.integer({ min: 1, max: 3 }), async (latencies, concurrency) => {
        const checks = await resumeFromEveryCut(parallel(latencies, concurrency));
        expect(checks.expected.result).toMatchObject({ success: true });
        expect(checks.resumes.length).toBe(checks.expected.k);
        expectEveryResume(checks, ['tree']);
      }),
      { numRuns: 15 },
    );
  });

  it('parallel work whose agents finish in the order they started: the event tree too (every cut)', async () => {
    expectEveryResume(await resumeFromEveryCut(parallel([1, 4, 6], 3)));
  });

  it('parallel work whose agents finish out of start order: the event tree too (every cut)', async () => {
    expectEveryResume(await resumeFromEveryCut(parallel([3, 0], 2)));
  });

  it('a free-for-all conversation of one speaker at a time: everything (every cut)', async () => {
    expectEveryResume(await resumeFromEveryCut(freeForAll([2, 1], 1)));
  });

  it('a free-for-all conversation of speakers answering at once (every cut)', async () => {
    expectEveryResume(await resumeFromEveryCut(freeForAll([0, 0], 2)));
  });
});
