import { asyncScheduler, catchError, filter, map, of, tap } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { z } from 'zod';
import { answerInterrupt, ConfigError, defineAgent, observeRun, pendingInterrupts, type ApprovalDecision, type RunEvent } from '@rxagents/core';
import { recordingAgent } from '@rxagents/testing';
import { handoff, HandoffApprovalUnavailableError, handoffFilters, HandoffRejectedError, routingAgent, type ToolCallingModel } from '@rxagents/handoff';

const testScheduler = (): TestScheduler => new TestScheduler((actual, expected) => expect(actual).toEqual(expected));

/** `type@at`, with who handed off to whom, the approval asked and how a failed end failed. */
function brief(event: RunEvent): string {
  if (event.type === 'handoff') return `handoff@${event.at} ${event.from}>${event.to}`;
  if (event.type === 'interrupt') return `interrupt@${event.at} ${event.action} ${JSON.stringify(event.args)}`;
  if (event.type === 'interrupt-end') return `interrupt-end@${event.at} ${JSON.stringify(event.answer)}`;
  if (event.type === 'call-error') return `call-error@${event.at} ${event.agentId}:${event.error.code}`;
  if (event.type === 'run-end') return `run-end@${event.at} ${event.success ? event.output : event.error?.code}`;
  if (event.type === 'text-delta') return `text-delta@${event.at} ${event.delta}`;
  return `${event.type}@${event.at} ${'agentId' in event ? event.agentId : 'name' in event ? event.name : ''}`;
}

/** Answers every approval the run asks `after` ms later (on the virtual clock) with `decision`. */
const answering = (decision: ApprovalDecision, after: number) =>
  tap((event: RunEvent) => {
    if (event.type === 'interrupt') asyncScheduler.schedule(() => answerInterrupt(event.runId, event.interruptId, decision), after);
  });

/** A target that answers `reply` 10 ms after it is called, and counts its calls. */
function slowTarget(id: string, reply: string, cold: TestScheduler['createColdObservable']) {
  return recordingAgent(id, () => cold('10ms (a|)', { a: reply }));
}

describe('a handoff that needs approval', () => {
  it('approved after 50 ms, it hands off then: the target runs, under the handoff node, after the answer', () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const refunds = slowTarget('refunds', 'Refunded.', cold);
      const desk = routingAgent({ id: 'desk', handoffs: [handoff({ agent: refunds, needsApproval: true, condition: handoffFilters.topic(['refund']) })] });
      const events$ = desk.events$('refund order 42').pipe(answering({ approved: true }, 50), map(brief));
      expectObservable(events$).toBe('(abcd) 44ms (efg) 5ms (hijklm|)', {
        a: 'run-start@0 routing',
        b: 'call-start@0 desk',
        c: 'run-start@0 handoff',
        d: 'interrupt@0 transfer_to_refunds {"from":"desk","to":"refunds","input":"refund order 42"}',
        e: 'interrupt-end@50 {"approved":true}',
        f: 'handoff@50 desk>refunds',
        g: 'call-start@50 refunds',
        h: 'text-delta@60 Refunded.',
        i: 'call-end@60 refunds',
        j: 'run-end@60 Refunded.',
        k: 'text-delta@60 Refunded.',
        l: 'call-end@60 desk',
        m: 'run-end@60 Refunded.',
      });
    });
  });

  it('refused, it does not happen: the target never runs, onHandoff is not called, and the routing call fails, caused by a HandoffRejectedError', () => {
    testScheduler().run(({ cold, expectObservable, flush }) => {
      const refunds = slowTarget('refunds', 'Refunded.', cold);
      const handedOff: string[] = [];
      const desk = routingAgent({
        id: 'desk',
        handoffs: [handoff({ agent: refunds, needsApproval: true, condition: handoffFilters.topic(['refund']), onHandoff: (source) => handedOff.push(source.id) })],
      });
      const events$ = desk.events$('refund order 42').pipe(answering({ approved: false, reason: 'Refunds are closed today' }, 30), map(brief));
      expectObservable(events$).toBe('(abcd) 24ms (efgh|)', {
        a: 'run-start@0 routing',
        b: 'call-start@0 desk',
        c: 'run-start@0 handoff',
        d: 'interrupt@0 transfer_to_refunds {"from":"desk","to":"refunds","input":"refund order 42"}',
        e: 'interrupt-end@30 {"approved":false,"reason":"Refunds are closed today"}',
        f: 'run-end@30 HANDOFF_REJECTED',
        // The routing agent's call fails as any agent call does: an AgentError whose cause is the refusal.
        g: 'call-error@30 desk:AGENT_ERROR',
        h: 'run-end@30 AGENT_ERROR',
      });
      flush();
      expect(refunds.calls).toHaveLength(0);
      expect(handedOff).toEqual([]);
    });
  });

  it('asks with the arguments the model chose, and a predicate over them decides which transfers need a person', () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const refunds = slowTarget('refunds', 'Refunded.', cold);
      const model: ToolCallingModel = ({ messages }) =>
        of({ toolCalls: [{ id: 'c1', name: 'transfer_to_refunds', arguments: JSON.stringify({ amount: messages.at(-1)?.content === 'big' ? 900 : 20 }) }] });
      const desk = routingAgent({
        id: 'desk',
        model,
        handoffs: [handoff({ agent: refunds, inputSchema: z.object({ amount: z.number() }), needsApproval: ({ arguments: args }) => (args as { amount: number }).amount > 500 })],
      });
      const seen = (input: string) =>
        desk.events$(input).pipe(
          answering({ approved: false, reason: 'too much' }, 5),
          filter((event) => event.type === 'interrupt' || (event.type === 'run-end' && event.parentCallId === null)),
          map(brief),
        );
      expectObservable(seen('small')).toBe('10ms (a|)', { a: 'run-end@10 Refunded.' });
      expectObservable(seen('big')).toBe('a 4ms (b|)', {
        a: 'interrupt@0 transfer_to_refunds {"from":"desk","to":"refunds","input":"big","arguments":{"amount":900}}',
        b: 'run-end@5 AGENT_ERROR',
      });
    });
  });

  it('closes the open question when the handoff is cancelled while it waits, and never hands off', () => {
    testScheduler().run(({ cold, expectObservable, flush }) => {
      const refunds = slowTarget('refunds', 'Refunded.', cold);
      let runId = '';
      const events$ = handoff({ agent: refunds, needsApproval: true })
        .events$({ id: 'desk' }, { input: 'refund' })
        .pipe(
          tap((event) => (runId = event.runId)),
          map(brief),
        );
      expectObservable(events$, '^ 20ms !').toBe('(ab)', {
        a: 'run-start@0 handoff',
        b: 'interrupt@0 transfer_to_refunds {"from":"desk","to":"refunds","input":"refund"}',
      });
      flush();
      expect(refunds.calls).toHaveLength(0);
      expect(runId).not.toBe('');
      expect(pendingInterrupts(runId)).toEqual([]);
    });
  });

  it('without a run to ask in, fails with HandoffApprovalUnavailableError before the target is touched', async () => {
    const refunds = recordingAgent('refunds', async () => 'Refunded.');
    const toRefunds = handoff({ agent: refunds, needsApproval: true });

    await expect(toRefunds.execute({ id: 'desk' }, { input: 'refund' })).rejects.toBeInstanceOf(HandoffApprovalUnavailableError);
    await expect(toRefunds.execute({ id: 'desk' }, { input: 'refund' })).rejects.toMatchObject({ code: 'HANDOFF_APPROVAL_UNAVAILABLE', toolName: 'transfer_to_refunds', retryable: false });
    expect(refunds.calls).toHaveLength(0);
  });

  it('refuses the transfer when nobody answers within approvalTimeout, on virtual time', () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const refunds = slowTarget('refunds', 'Refunded.', cold);
      const events$ = handoff({ agent: refunds, needsApproval: true, approvalTimeout: 1_000 }).events$({ id: 'desk' }, { input: 'refund' }).pipe(map(brief));
      expectObservable(events$).toBe('(ab) 996ms (cd|)', {
        a: 'run-start@0 handoff',
        b: 'interrupt@0 transfer_to_refunds {"from":"desk","to":"refunds","input":"refund"}',
        c: 'interrupt-end@1000 {"approved":false,"reason":"Not answered in time"}',
        d: 'run-end@1000 HANDOFF_REJECTED',
      });
    });
  });

  it('fails with a HandoffRejectedError carrying the person’s reason, for a predicate answering later too', async () => {
    const refunds = recordingAgent('refunds', async () => 'Refunded.');
    const toRefunds = handoff({ agent: refunds, needsApproval: async () => true });
    let refused: unknown;
    const events$ = observeRun('desk', 'refund', (run) =>
      toRefunds.execute$({ id: 'desk' }, { input: 'refund' }, { run }).pipe(
        map((outcome) => (outcome.success ? outcome.output : 'failed')),
        catchError((error: unknown) => {
          refused = error;
          return of('refused');
        }),
      ),
    );
    await new Promise<void>((resolve) =>
      events$.subscribe((event) => {
        if (event.type === 'interrupt') queueMicrotask(() => answerInterrupt(event.runId, event.interruptId, { approved: false, reason: 'closed' }));
        if (event.type === 'run-end' && event.parentCallId === null) resolve();
      }),
    );
    expect(refused).toBeInstanceOf(HandoffRejectedError);
    expect(refused).toMatchObject({ code: 'HANDOFF_REJECTED', reason: 'closed', toolName: 'transfer_to_refunds', retryable: false, message: 'The handoff transfer_to_refunds was refused: closed' });
    expect(refunds.calls).toHaveLength(0);
  });

  it('refuses a needsApproval that is no boolean or function, and a bad approvalTimeout, with a ConfigError', () => {
    const refunds = defineAgent('refunds', async () => 'Refunded.');
    expect(() => handoff({ agent: refunds, needsApproval: 'yes' as never })).toThrow(ConfigError);
    expect(() => handoff({ agent: refunds, needsApproval: 'yes' as never })).toThrow(/needsApproval must be a boolean or a function/);
    expect(() => handoff({ agent: refunds, approvalTimeout: 0 })).toThrow(/approvalTimeout/);
  });
});
