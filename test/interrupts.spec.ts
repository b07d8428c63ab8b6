import { defer, finalize, map, type Observable } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { z } from 'zod';
import { answerInterrupt, askForApproval, askForInput, defineAgent, InterruptAnswerError, observeRun, pendingInterrupts$, type Agent, type RunEvent, type RunEventOf } from '@rxagents/core';
import { scriptedAgent } from '@rxagents/testing';
import { DefaultHandoff, handoff, HandoffChain, HandoffContext, handoffFilters, routingAgent } from '@rxagents/handoff';
import { Patterns } from '@rxagents/patterns';
import { ChoreographyEngine, ChoreographySpec } from '@rxagents/choreography';
import { resumeFromEveryCut, type ResumeCheck, type Scenario, type ScenarioContext } from './support/durableResume';

// Each spec runs a whole run once per cut of its journal (hundreds of runs): more than jest's default 5 s on a
// loaded machine, whatever the code's speed.
jest.setTimeout(60_000);

// Interrupts inside every kind of run, on virtual time. A scripted person answers each question 3 virtual
// ms after it opens (first with an answer its schema refuses, which must leave the question open). Each
// scenario runs once with a store, then is resumed from every cut of its journal: before the question,
// while it is open (a restart while a person has not answered yet), and after the answer. Every resume
// must give the uninterrupted run's result and event tree, and call each agent once per call that had
// not ended in the cut journal.

/** Answers every question of a run 3 virtual ms after it opens; counts the questions a person was really asked. */
function withPerson(scenario: Scenario, asked: { count: number; refused: number }): Scenario {
  return (context) => {
    const start = scenario(context);
    return (options) =>
      defer(() => {
        const seen = new Set<string>();
        const watching = pendingInterrupts$(options.runId).subscribe((open) => {
          for (const question of open) {
            if (seen.has(question.interruptId)) continue;
            seen.add(question.interruptId);
            asked.count++;
            context.scheduler.schedule(() => {
              try {
                answerInterrupt(question.runId, question.interruptId, question.kind === 'approval' ? { approved: 'sure' } : 42);
              } catch (error) {
                if (error instanceof InterruptAnswerError) asked.refused++;
              }
              answerInterrupt(question.runId, question.interruptId, question.kind === 'approval' ? { approved: true } : `answer to ${question.question}`);
            }, 3);
          }
        });
        return start(options).pipe(finalize(() => watching.unsubscribe()));
      });
  };
}

/** An agent that asks a person before it answers (input, or an approval of `speak`), in two chunks after `delay`. */
const askingAgent = ({ scheduler, calls }: ScenarioContext, id: string, kind: 'input' | 'approval', delay = 2): Agent =>
  calls.count(
    defineAgent(id, (input, { run }) => {
      const answer$: Observable<string> =
        kind === 'input'
          ? askForInput(run!, `${id}: ${input.slice(0, 40)}?`, { schema: z.string().min(1) })
          : askForApproval(run!, 'speak', { who: id, about: input.slice(0, 40) }).pipe(map((decision) => (decision.approved ? 'approved' : 'refused')));
      return answer$.pipe(map((answer) => `${id} heard "${answer}"`));
    }),
  );

const plain = ({ scheduler, calls }: ScenarioContext, id: string, delay: number): Agent =>
  calls.count(scriptedAgent(id, (input) => ({ chunks: [`${id} read `, `${input.length}`], delay, interval: 1 }), { scheduler }));

/** Interrupt ids are random: a resume that asks anew uses a new one. Trees are compared without them. */
function withoutIds(check: ResumeCheck): ResumeCheck {
  const tree = new Map([...check.tree].map(([key, events]) => [key, events.map((event) => ({ ...(event as object), interruptId: undefined }))]));
  return { ...check, tree };
}

async function expectEveryResume(scenario: Scenario, options: { unorderedNodes?: boolean; uncounted?: readonly string[] } = {}): Promise<{ output: unknown; resumes: number }> {
  const asked = { count: 0, refused: 0 };
  const checks = await resumeFromEveryCut(withPerson(scenario, asked), options);
  expect(checks.expected.result).toMatchObject({ success: true });
  for (const { actual, expected } of checks.resumes) expect(withoutIds(actual)).toEqual(withoutIds(expected));
  // Every question asked got one refused answer first, which left it open.
  expect(asked.refused).toBe(asked.count);
  return { output: (checks.expected.result as { output?: unknown }).output, resumes: checks.resumes.length };
}

describe('an interrupt inside every kind of run, resumed from every cut of its journal', () => {
  it('in a handoff chain: the middle step asks a person', async () => {
    const scenario: Scenario = (context) => {
      const chain = HandoffChain.builder().add(plain(context, 'intake', 3)).add(askingAgent(context, 'reviewer', 'input')).add(plain(context, 'publish', 2)).build();
      return ({ store, runId }) => chain.events$(new DefaultHandoff({ scheduler: context.scheduler }), HandoffContext.of('release notes'), { scheduler: context.scheduler, store, runId });
    };
    const { output, resumes } = await expectEveryResume(scenario);
    expect(output).toMatch(/^publish read /);
    expect(resumes).toBeGreaterThan(10);
  });

  it('in a routing agent: a handoff a person must allow', async () => {
    const scenario: Scenario = (context) => {
      const { scheduler } = context;
      const refunds = handoff({ agent: plain(context, 'refunds', 3), needsApproval: true, condition: handoffFilters.topic(['refund']), scheduler });
      const desk = routingAgent({ id: 'desk', handoffs: [refunds, handoff({ agent: plain(context, 'support', 2), scheduler })] });
      return ({ store, runId }) => desk.events$('A refund for order 42', { scheduler, store, runId });
    };
    const { output } = await expectEveryResume(scenario, { uncounted: ['desk'] });
    expect(output).toMatch(/^refunds read /);
  });

  it('in a debate over a channel: a debater asks for approval before each turn', async () => {
    const scenario: Scenario = (context) => {
      const debate = Patterns.debate({ agents: [askingAgent(context, 'pro', 'approval'), plain(context, 'con', 2)], maxRounds: 2, scheduler: context.scheduler }).overChannel();
      return ({ store, runId }) => debate.events$('Release today?', { store, runId });
    };
    await expectEveryResume(scenario);
  });

  it('in a choreography step: the reviewer interaction asks a person', async () => {
    const spec = ChoreographySpec.builder('report')
      .initialEvent('start')
      .interaction('research', 'lead', 'researcher', 'start', 'researched', 'Collect sources')
      .interaction('review', 'researcher', 'reviewer', 'researched', null, 'Review the sources')
      .build();
    const scenario: Scenario = (context) => {
      const agents = new Map<string, Agent>([
        ['researcher', plain(context, 'researcher', 3)],
        ['reviewer', askingAgent(context, 'reviewer', 'input')],
      ]);
      const engine = new ChoreographyEngine({ spec, agents, scheduler: context.scheduler });
      return ({ store, runId }) => engine.events$({ input: 'Q3 report', store, runId });
    };
    await expectEveryResume(scenario, { unorderedNodes: true });
  });

  it('in a nested pattern inside a supervisor: a debater of the delegated panel asks a person', async () => {
    const scenario: Scenario = (context) => {
      const { scheduler, calls } = context;
      const panel = Patterns.debate({ agents: [askingAgent(context, 'optimist', 'input'), plain(context, 'skeptic', 2)], maxRounds: 1, scheduler })
        .overChannel()
        .asAgent('panel', { role: 'debate panel' });
      const lead = calls.count(scriptedAgent('lead', (input) => (/optimist heard/.test(input) ? { reply: 'FINAL: the panel agrees', delay: 1 } : { reply: 'DELEGATE panel: Adopt RxJS 8?', delay: 2 }), { scheduler }));
      const supervisor = Patterns.supervisor({ supervisor: lead, workers: [calls.count(panel)], scheduler });
      return ({ store, runId }) => supervisor.events$('Decide on the RxJS upgrade', { store, runId });
    };
    const { output } = await expectEveryResume(scenario);
    expect(output).toBe('the panel agrees');
  });
});

describe('an interrupt in a run, as marbles', () => {
  const kinds = (event: RunEvent): string => (event.type === 'interrupt-end' ? `end:${event.answered ? 'answered' : event.error?.code ?? event.error?.name}` : event.type);

  it('a chain waits for the person, then hands on: answered at frame 10', () => {
    const scheduler = new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
    scheduler.run(({ expectObservable }) => {
      const asker = defineAgent('asker', (input, { run }) => askForInput(run!, 'Go?'));
      const chain = HandoffChain.builder().add(scriptedAgent('intake', { reply: 'unused' })).add(asker).add(scriptedAgent('after', { reply: 'done' })).build();
      const events$ = chain.events$(new DefaultHandoff(), HandoffContext.of('x'), { runId: 'marbles' });
      const openNow: RunEventOf<'interrupt'>[] = [];
      pendingInterrupts$('marbles').subscribe((open) => open.length > 0 && openNow.splice(0, openNow.length, ...open));
      scheduler.schedule(() => answerInterrupt('marbles', (openNow[0] as RunEventOf<'interrupt'>).interruptId, 'yes'), 10);
      // A chain's steps are nested runs, each a handoff into its agent's call; the asker's call waits for the answer.
      expectObservable(events$.pipe(map(kinds))).toBe('(abcde) 3ms (fghijcdghii|)', {
        a: 'run-start',
        b: 'run-start',
        c: 'handoff',
        d: 'call-start',
        e: 'interrupt',
        f: 'end:answered',
        g: 'text-delta',
        h: 'call-end',
        i: 'run-end',
        j: 'run-start',
      });
    });
  });

  it('cancellation while waiting closes the question (AbortError); a timeout fails the wait with INTERRUPT_TIMEOUT', () => {
    const scheduler = new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
    scheduler.run(({ expectObservable }) => {
      const waiting$ = observeRun('wait', 'go', (run) => askForInput(run, 'Anyone?'), { runId: 'cancelled' });
      expectObservable(waiting$.pipe(map(kinds)), '^ 20ms !').toBe('(ab)', { a: 'run-start', b: 'interrupt' });
      const timed$ = observeRun('wait', 'go', (run) => askForInput(run, 'Anyone?', { timeout: 30 }), { runId: 'timed' });
      expectObservable(timed$.pipe(map(kinds))).toBe('(ab) 26ms (cd|)', { a: 'run-start', b: 'interrupt', c: 'end:INTERRUPT_TIMEOUT', d: 'run-end' });
    });
  });
});
