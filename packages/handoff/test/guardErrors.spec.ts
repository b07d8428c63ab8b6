import { TestScheduler } from 'rxjs/testing';
import { z } from 'zod';
import { defineAgent } from '@rxagents/core';
import { hangingAgent } from '@rxagents/testing';
import { DefaultHandoff, handoff, HandoffContext, HandoffCycleError, HandoffDepthError, HandoffTimeoutError } from '@rxagents/handoff';

const testScheduler = () => new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
const triage = { id: 'triage' };

describe('guard errors name both sides', () => {
  it('a timeout names the source and the target, in context and message, in the unit it was configured in', () => {
    testScheduler().run(({ expectObservable }) => {
      const seconds = handoff({ agent: hangingAgent('billing'), timeoutSeconds: 0.02 }).execute$(triage, { input: 'x' });
      expectObservable(seconds).toBe('20ms #', undefined, expect.objectContaining({
        message: 'Handoff from "triage" to "billing" timed out after 0.02s',
        context: expect.objectContaining({ source_agent: 'triage', target_agent: 'billing', timeout_ms: 20, timeout_seconds: 0.02 }),
      }));
      const ms = handoff({ agent: hangingAgent('billing'), timeout: 20 }).execute$(triage, { input: 'x' });
      expectObservable(ms).toBe('20ms #', undefined, expect.objectContaining({ message: 'Handoff from "triage" to "billing" timed out after 20 ms' }));
    });
  });

  it('the timeout keeps the target\'s own timeout as its cause', async () => {
    const failure = await handoff({ agent: hangingAgent('billing'), timeout: 1 }).execute(triage, { input: 'x' }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(HandoffTimeoutError);
    expect((failure as HandoffTimeoutError).sourceAgentId).toBe('triage');
    expect((failure as Error).cause).toMatchObject({ code: 'AGENT_TIMEOUT', agentId: 'billing' });
  });

  it('a cycle names the source and the target', async () => {
    const billing = defineAgent('billing', async () => 'paid');
    const failure = await handoff({ agent: billing }).execute(triage, { input: 'x', handoffChain: ['billing'] }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(HandoffCycleError);
    expect((failure as HandoffCycleError).context).toMatchObject({ cycle_path: ['billing', 'triage', 'billing'], source_agent: 'triage', target_agent: 'billing' });
  });

  it('a depth limit names the source and the target, from a Handoff and from a DefaultHandoff', async () => {
    const billing = defineAgent('billing', async () => 'paid');
    const failure = await handoff({ agent: billing, maxDepth: 1 }).execute(triage, { input: 'x', handoffChain: ['intake'] }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(HandoffDepthError);
    expect((failure as HandoffDepthError).context).toMatchObject({ max_depth: 1, current_depth: 1, source_agent: 'triage', target_agent: 'billing' });
    expect((failure as Error).message).toBe('Handoff depth limit reached: chain is 1 deep, maxDepth is 1 (from "triage" to "billing")');
    const result = await new DefaultHandoff().execute(triage, billing, new HandoffContext({ taskId: 't', maxDepth: 0 }));
    expect(result.success ? undefined : result.error).toMatchObject({ context: { source_agent: 'triage', target_agent: 'billing' } });
  });
});

describe('a validation error names both sides', () => {
  it('arguments that do not fit the inputSchema carry the source and the target', async () => {
    const refunds = defineAgent('refunds', async () => 'ok');
    const failure = await handoff({ agent: refunds, inputSchema: z.object({ orderId: z.string() }) })
      .execute(triage, { input: 'x', arguments: '{}' })
      .catch((error: unknown) => error);
    expect((failure as { context?: unknown }).context).toMatchObject({ toolName: 'transfer_to_refunds', source_agent: 'triage', target_agent: 'refunds' });
  });
});
