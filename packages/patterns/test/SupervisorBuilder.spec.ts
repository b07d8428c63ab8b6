import { map } from 'rxjs';
import { scriptedAgent } from '@rxagents/testing';
import { AgentRef, Patterns, UnknownParticipantError, type ExecutionResult, type SupervisorState } from '@rxagents/patterns';
import { countLargeArrayCopies, debater, testScheduler } from './helpers';

describe('Patterns.supervisor', () => {
  it('dispatches a ComposedAgent debate that runs over its own channel, as one sub-task', () => {
    const judge = scriptedAgent('judge', (input) => (/skeptic r2/.test(input) ? 'CONVERGED' : 'CONTINUE'));
    const panel = Patterns.debate({ agents: [debater('optimist', 10), debater('skeptic', 10)], maxRounds: 5, judge })
      .overChannel()
      .asAgent('panel', { role: 'debate panel' });
    const lead = scriptedAgent('lead', (input) =>
      /optimist r1/.test(input) ? { reply: 'FINAL: the panel agrees', delay: 1 } : { reply: 'DELEGATE panel: Should we adopt RxJS 8?', delay: 1 },
    );
    testScheduler().run(({ expectObservable }) => {
      const result$ = Patterns.supervisor({ supervisor: lead, workers: [panel] })
        .snapshots$('Decide on the RxJS upgrade')
        .pipe(map((r) => (r.status === 'running' ? `${r.state.steps.length}${r.state.pending?.worker ?? '-'}` : `${r.status}:${r.output}`)));
      // lead at 1 delegates; the panel debates two rounds of two 10 ms turns (ends at 41); lead answers at 42.
      expectObservable(result$).toBe('1ms a 39ms b (cz|)', { a: '0panel', b: '1-', c: '1-', z: 'completed:the panel agrees' });
    });
    expect(AgentRef.isComposed(panel) && panel.model.backend !== undefined).toBe(true);
    expect(lead.inputs[1]).toContain('optimist: optimist r1');
  });

  it('escalates after maxSteps delegations without a final answer', async () => {
    const lead = scriptedAgent('lead', 'DELEGATE worker: again');
    const result = await Patterns.supervisor({ supervisor: lead, workers: [scriptedAgent('worker', 'done')], maxSteps: 2 }).execute('loop');
    expect([result.status, result.reason, result.state.steps.length]).toEqual(['escalated', 'no final answer after 2 delegations', 2]);
  });

  it('fails when the supervisor names an unknown worker', async () => {
    const result = await Patterns.supervisor({ supervisor: scriptedAgent('lead', 'DELEGATE ghost: boo'), workers: [scriptedAgent('w', 'x')] }).execute('t');
    expect(result.status).toBe('failed');
    expect(result.error).toBeInstanceOf(UnknownParticipantError);
  });
});

describe('Patterns.supervisor snapshots', () => {
  it('copies no step per delegation: 1,500 delegations, each snapshot reads as it was', () => {
    const lead = scriptedAgent('lead', 'DELEGATE worker: more');
    const worker = scriptedAgent('worker', 'done');
    const snapshots: ExecutionResult<SupervisorState>[] = [];
    const copies = countLargeArrayCopies(1_000, () => {
      Patterns.supervisor({ supervisor: lead, workers: [worker], maxSteps: 1_500, prompt: () => 'next?' })
        .snapshots$('task')
        .subscribe((snapshot) => snapshots.push(snapshot));
    });
    expect(copies).toBe(0);
    const final = snapshots.at(-1) as ExecutionResult<SupervisorState>;
    expect([final.status, final.state.steps.length, snapshots[3]?.state.steps.length]).toEqual(['escalated', 1_500, 2]);
  });
});
