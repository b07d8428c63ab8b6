import fc from 'fast-check';
import { ConfigError, MemoryRunStore } from '@rxagents/core';
import { scriptedAgent } from '@rxagents/testing';
import { ChoreographyEngine, ChoreographySpec } from '@rxagents/choreography';
import { resumeFromEveryCut, resumeFromEveryTwoCuts, type ResumeCheck, type Scenario } from '../../../test/support/durableResume';

// Each spec runs a whole run once per cut of its journal (hundreds of runs): more than jest's default 5 s on a
// loaded machine, whatever the code's speed.
jest.setTimeout(60_000);

// Every spec here runs a choreography once with a store, then resumes it from each cut of its journal
// (the first k records, for every k) and checks what a resumed run gives: the uninterrupted run's result
// and event tree (see eventTree: timings removed, interrupted attempts dropped, nodes by place key; the
// root's own events, published as interactions finish, compared as a multiset), and each agent called
// once for each of its calls that had not ended in the cut journal.

type Checks = Awaited<ReturnType<typeof resumeFromEveryCut>>;

/** Every resume gave what it had to (`without` leaves checks out: see the failing spec below). */
function expectEveryResume(checks: Checks, without: readonly (keyof ResumeCheck)[] = []): void {
  expect(checks.resumes.length).toBe(checks.expected.k);
  const shown = (check: ResumeCheck) => Object.fromEntries(Object.entries(check).filter(([key]) => !without.includes(key as keyof ResumeCheck)));
  for (const { actual, expected } of checks.resumes) expect(shown(actual)).toEqual(shown(expected));
}

const TARGETS = ['researcher', 'surveyor', 'summarizer', 'charter', 'writer', 'reviewer'] as const;

/** An engine for `spec` whose agents (one per target) answer in two chunks after the given latencies. */
const engineOf = (spec: ChoreographySpec, latencies: readonly number[]): Scenario => ({ scheduler, calls }) => {
  const agents = new Map(
    TARGETS.map((id, index) => [id, calls.count(scriptedAgent(id, (input) => ({ chunks: [`${id} read `, `${input.length}`], delay: latencies[index] ?? 1, interval: 1 }), { scheduler }))]),
  );
  const engine = new ChoreographyEngine({ spec, agents, scheduler });
  return ({ store, runId }) => engine.events$({ input: 'Q3 report', store, runId });
};

/** One interaction at a time: research, then a survey, joined by an AND-join (a draft), then a review. */
const sequential = ChoreographySpec.builder('report')
  .initialEvent('start')
  .interaction('research', 'lead', 'researcher', 'start', 'researched', 'Collect sources')
  .interaction('survey', 'researcher', 'surveyor', 'researched', 'surveyed', 'Survey the users')
  .interaction({ id: 'draft', source: 'surveyor', target: 'writer', trigger: ['researched', 'surveyed'], emits: 'drafted', task: 'Write the report' })
  .interaction('review', 'writer', 'reviewer', 'drafted', null, 'Review the report')
  .build();

/**
 * Two branches from the start, each continued by a second interaction when its first one finishes (so
 * the second ones start in the order the first ones finish), joined by an AND-join, then a review.
 */
const branching = ChoreographySpec.builder('report')
  .initialEvent('start')
  .interaction('research', 'lead', 'researcher', 'start', 'researched', 'Collect sources')
  .interaction('survey', 'lead', 'surveyor', 'start', 'surveyed', 'Survey the users')
  .interaction('summarize', 'researcher', 'summarizer', 'researched', 'summarized', 'Summarize the sources')
  .interaction('chart', 'surveyor', 'charter', 'surveyed', 'charted', 'Chart the answers')
  .interaction({ id: 'draft', source: 'summarizer', target: 'writer', trigger: ['summarized', 'charted'], emits: 'drafted', task: 'Write the report' })
  .interaction('review', 'writer', 'reviewer', 'drafted', null, 'Review the report')
  .build();

const latencies = fc.array(fc.integer({ min: 0, max: 9 }), { minLength: TARGETS.length, maxLength: TARGETS.length });

describe('a durable choreography resumes from any cut of its journal', () => {
  it('with an AND-join, one interaction at a time, random latencies (every cut)', async () => {
    await fc.assert(
      fc.asyncProperty(latencies, async (delays) => {
        const checks = await resumeFromEveryCut(engineOf(sequential, delays), { unorderedNodes: true });
        expect(checks.expected.result).toMatchObject({ success: true, output: 'reviewer read 42' });
        expect(checks.resumes).toHaveLength(27);
        expectEveryResume(checks);
      }),
      { numRuns: 20 },
    );
  });

  it('with an AND-join, resumed, cut again anywhere in the resumed journal and resumed again (every pair of cuts)', async () => {
    const checks = await resumeFromEveryTwoCuts(engineOf(sequential, [2, 1, 3, 1, 2, 1]), { unorderedNodes: true });
    for (const { actual, expected } of checks.resumes) expect(actual).toEqual(expected);
  });

  it("names each interaction's call place by the interaction's id, so it is found whatever order the calls start in", async () => {
    const checks = await resumeFromEveryCut(engineOf(branching, [5, 1, 2, 2, 1, 1]), { unorderedNodes: true });
    const calls = [...checks.expected.tree.keys()].filter((key) => key !== 'run');
    expect(calls.sort()).toEqual(['run/~chart', 'run/~draft', 'run/~research', 'run/~review', 'run/~summarize', 'run/~survey']);
  });

  it('with two branches running at once and an AND-join: result and calls (every cut)', async () => {
    const checks = await resumeFromEveryCut(engineOf(branching, [5, 1, 2, 2, 1, 1]), { unorderedNodes: true });
    expectEveryResume(checks, ['tree']);
  });

  it('refuses a store, run id or lease that is not one, naming the option', () => {
    const engine = () => new ChoreographyEngine({ spec: sequential, agents: new Map(TARGETS.map((id) => [id, scriptedAgent(id, 'ok')])) });
    expect(() => engine().events$({ store: {} as never })).toThrow(ConfigError);
    expect(() => engine().events$({ runId: ' ' })).toThrow(/runId must be a non-blank string/);
    expect(() => engine().events$({ store: new MemoryRunStore(), leaseTtlMs: 0 })).toThrow(/leaseTtlMs must be/);
  });
});
