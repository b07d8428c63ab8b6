import { AgentError, answerInterrupt, ConfigError, InterruptNotFoundError, invoke$, MemoryRunStore, observeRun, pendingInterrupts, type RunEvent } from '@rxagents/core';
import { tool } from 'ai';
import { lastValueFrom, toArray } from 'rxjs';
import { z } from 'zod';
import { aiSdkAgent, ToolApprovalUnavailableError, type AiSdkUsageReport } from '@rxagents/ai-sdk';
import type { LanguageModelV3StreamPart } from '@ai-sdk/provider';
import { MockLanguageModelV3, convertArrayToReadableStream } from 'ai/test';
import { settle, usage } from './mockModels';
import { advance, describeResult, interruptsOf, lastToolResults, rootEnd, toolCallingModel, untilAsked, virtualTime, watch } from './toolModels';

/** A refund tool that needs approval, recording what it refunded. */
function refundTool(refunded: number[]) {
  return tool({
    description: 'Refund an amount to the customer',
    inputSchema: z.object({ amount: z.number() }),
    needsApproval: true,
    execute: async ({ amount }) => {
      refunded.push(amount);
      return { refunded: amount };
    },
  });
}

const answerFrom = (results: Parameters<typeof describeResult>[0][]): string => results.map(describeResult).join(' | ');

describe('aiSdkAgent with tools that need approval', () => {
  it('asks for the tool call in the run; approved, the tool runs, its result reaches the model and the reply goes on', async () => {
    const refunded: number[] = [];
    const model = toolCallingModel([{ toolName: 'refund', input: { amount: 120 } }], answerFrom);
    const agent = aiSdkAgent({ id: 'cashier', model, tools: { refund: refundTool(refunded) } });
    const reports: AiSdkUsageReport[] = [];
    agent.usage$.subscribe((report) => reports.push(report));

    const run = watch(observeRun('refund', 'Refund Ada', (run) => invoke$(agent, 'Refund Ada', { run })));
    const [asked] = await untilAsked(run.events);
    expect(asked).toMatchObject({ kind: 'approval', action: 'refund', args: { amount: 120 }, question: 'Allow refund?' });
    expect(refunded).toEqual([]);
    answerInterrupt(asked!.runId, asked!.interruptId, { approved: true });
    await run.done;

    expect(refunded).toEqual([120]);
    expect(model.doStreamCalls).toHaveLength(2);
    expect(lastToolResults(model.doStreamCalls[1]!.prompt).map(describeResult)).toEqual(['{"refunded":120}']);
    expect(rootEnd(run.events)).toMatchObject({ success: true, output: 'Let me check. {"refunded":120}' });
    // Every step's text streams, and the interrupt sits under the agent's call.
    const call = run.events.find((event) => event.type === 'call-start');
    expect(run.events.flatMap((event) => (event.type === 'text-delta' ? [event.delta] : []))).toEqual(['Let me check. ', '{"refunded":120}']);
    expect(asked!.parentCallId).toBe(call?.callId);
    // One usage report for the reply, its tokens summed over both model calls.
    expect(reports).toHaveLength(1);
    expect(reports[0]).toMatchObject({ inputTokens: 30, outputTokens: 8, totalTokens: 38, finishReason: 'stop' });
    expect(run.events.filter((event) => event.type === 'usage')).toEqual([expect.objectContaining({ inputTokens: 30, outputTokens: 8 })]);
  });

  it('refused, the tool does not run and the model gets the refusal with the reason as the tool result', async () => {
    const refunded: number[] = [];
    const model = toolCallingModel([{ toolName: 'refund', input: { amount: 900 } }], answerFrom);
    const agent = aiSdkAgent({ id: 'cashier', model, tools: { refund: refundTool(refunded) } });

    const run = watch(observeRun('refund', 'Refund Ada', (run) => invoke$(agent, 'Refund Ada', { run })));
    const [asked] = await untilAsked(run.events);
    answerInterrupt(asked!.runId, asked!.interruptId, { approved: false, reason: 'Refunds over 500 need a manager' });
    await run.done;

    expect(refunded).toEqual([]);
    expect(lastToolResults(model.doStreamCalls[1]!.prompt)).toEqual([
      expect.objectContaining({ toolName: 'refund', output: { type: 'execution-denied', reason: 'Refunds over 500 need a manager' } }),
    ]);
    expect(rootEnd(run.events)).toMatchObject({ success: true, output: 'Let me check. denied: Refunds over 500 need a manager' });
  });

  it('holds two tool calls of one step open at once, each decided on its own', async () => {
    const refunded: number[] = [];
    const model = toolCallingModel(
      [
        { toolName: 'refund', input: { amount: 10 } },
        { toolName: 'refund', input: { amount: 20 } },
      ],
      answerFrom,
    );
    const agent = aiSdkAgent({ id: 'cashier', model, tools: { refund: refundTool(refunded) } });

    const run = watch(observeRun('refund', 'two refunds', (run) => invoke$(agent, 'two refunds', { run })));
    const asked = await untilAsked(run.events, 2);
    expect(pendingInterrupts(asked[0]!.runId).map((open) => open.args)).toEqual([{ amount: 10 }, { amount: 20 }]);
    answerInterrupt(asked[1]!.runId, asked[1]!.interruptId, { approved: false, reason: 'twice is too much' });
    answerInterrupt(asked[0]!.runId, asked[0]!.interruptId, { approved: true });
    await run.done;

    expect(refunded).toEqual([10]);
    expect(lastToolResults(model.doStreamCalls[1]!.prompt).map(describeResult).sort()).toEqual(['denied: twice is too much', '{"refunded":10}']);
    expect(model.doStreamCalls).toHaveLength(2);
  });

  it('asks again for a tool the model calls after an approved one, and ends after the second decision', async () => {
    const sent: string[] = [];
    const resultsIn = (prompt: { role: string; content: unknown }[]): number =>
      prompt.filter((message) => message.role === 'tool').flatMap((message) => message.content as { type: string }[]).filter((part) => part.type === 'tool-result').length;
    const step = (parts: LanguageModelV3StreamPart[]) => ({ stream: convertArrayToReadableStream<LanguageModelV3StreamPart>([{ type: 'stream-start', warnings: [] }, ...parts]) });
    const model = new MockLanguageModelV3({
      doStream: async ({ prompt }) => {
        const done = resultsIn(prompt);
        if (done === 0) return step([{ type: 'tool-call', toolCallId: 'c1', toolName: 'refund', input: '{"amount":30}' }, { type: 'finish', finishReason: { unified: 'tool-calls', raw: 'tool_calls' }, usage: usage(1, 1) }]);
        if (done === 1) return step([{ type: 'tool-call', toolCallId: 'c2', toolName: 'email', input: '{"to":"ada@example.com"}' }, { type: 'finish', finishReason: { unified: 'tool-calls', raw: 'tool_calls' }, usage: usage(1, 1) }]);
        return step([{ type: 'text-start', id: 't' }, { type: 'text-delta', id: 't', delta: answerFrom(lastToolResults(prompt)) }, { type: 'text-end', id: 't' }, { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage: usage(1, 1) }]);
      },
    });
    const refunded: number[] = [];
    const email = tool({ inputSchema: z.object({ to: z.string() }), needsApproval: true, execute: async ({ to }) => (sent.push(to), 'sent') });
    const agent = aiSdkAgent({ id: 'cashier', model, tools: { refund: refundTool(refunded), email } });

    const run = watch(observeRun('refund', 'go', (run) => invoke$(agent, 'go', { run })));
    const [first] = await untilAsked(run.events, 1);
    answerInterrupt(first!.runId, first!.interruptId, { approved: true });
    const [, second] = await untilAsked(run.events, 2);
    expect(second).toMatchObject({ action: 'email', args: { to: 'ada@example.com' } });
    answerInterrupt(second!.runId, second!.interruptId, { approved: false, reason: 'no e-mails today' });
    await run.done;

    expect(refunded).toEqual([30]);
    expect(sent).toEqual([]);
    expect(rootEnd(run.events)).toMatchObject({ success: true, output: 'denied: no e-mails today' });
    expect(agent.lastUsage).toMatchObject({ inputTokens: 3, outputTokens: 3 });
  });

  it('runs tools that need no approval in the SDK loop without asking anybody, outside a run too', async () => {
    const model = toolCallingModel([{ toolName: 'lookup', input: { id: 'A-1' } }], answerFrom);
    const lookup = tool({ inputSchema: z.object({ id: z.string() }), execute: async ({ id }) => ({ id, status: 'paid' }) });
    const agent = aiSdkAgent({ id: 'clerk', model, tools: { lookup } });

    await expect(lastValueFrom(invoke$(agent, 'Is A-1 paid?'))).resolves.toBe('Let me check. {"id":"A-1","status":"paid"}');
  });

  it('closes the open approval and calls the model no more when the run is cancelled while it waits', async () => {
    const refunded: number[] = [];
    const model = toolCallingModel([{ toolName: 'refund', input: { amount: 5 } }], answerFrom);
    const agent = aiSdkAgent({ id: 'cashier', model, tools: { refund: refundTool(refunded) } });

    const run = watch(observeRun('refund', 'go', (run) => invoke$(agent, 'go', { run })));
    const [asked] = await untilAsked(run.events);
    run.stop();
    await settle();

    expect(pendingInterrupts(asked!.runId)).toEqual([]);
    expect(() => answerInterrupt(asked!.runId, asked!.interruptId, { approved: true })).toThrow(InterruptNotFoundError);
    expect(refunded).toEqual([]);
    expect(model.doStreamCalls).toHaveLength(1);
  });

  it('fails the reply with ToolApprovalUnavailableError, and runs nothing, when the call has no run to ask in', async () => {
    const refunded: number[] = [];
    const model = toolCallingModel([{ toolName: 'refund', input: { amount: 5 } }], answerFrom);
    const agent = aiSdkAgent({ id: 'cashier', model, tools: { refund: refundTool(refunded) } });

    const error = await lastValueFrom(invoke$(agent, 'go')).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(AgentError);
    expect((error as AgentError).cause).toBeInstanceOf(ToolApprovalUnavailableError);
    expect((error as AgentError).cause).toMatchObject({ code: 'TOOL_APPROVAL_UNAVAILABLE', toolName: 'refund', agentId: 'cashier', retryable: false });
    expect(refunded).toEqual([]);
    expect(model.doStreamCalls).toHaveLength(1);
  });

  it('refuses the tool call when nobody answers within approvalTimeout, on the run scheduler', async () => {
    const scheduler = virtualTime();
    const refunded: number[] = [];
    const model = toolCallingModel([{ toolName: 'refund', input: { amount: 5 } }], answerFrom);
    const agent = aiSdkAgent({ id: 'cashier', model, tools: { refund: refundTool(refunded) }, approvalTimeout: 60_000 });

    const run = watch(observeRun('refund', 'go', (run) => invoke$(agent, 'go', { run }), { scheduler }));
    await untilAsked(run.events, 1, scheduler);
    advance(scheduler, 59_999);
    await settle();
    expect(model.doStreamCalls).toHaveLength(1);
    advance(scheduler, 1);
    await run.done;

    expect(refunded).toEqual([]);
    expect(rootEnd(run.events)).toMatchObject({ success: true, output: 'Let me check. denied: Not answered in time' });
  });

  it('stops after maxSteps model steps when the model keeps calling tools', async () => {
    let calls = 0;
    const model: MockLanguageModelV3 = new MockLanguageModelV3({
      doStream: async () => ({
        stream: convertArrayToReadableStream<LanguageModelV3StreamPart>([
          { type: 'stream-start', warnings: [] },
          { type: 'text-start', id: 't' },
          { type: 'text-delta', id: 't', delta: 'again ' },
          { type: 'text-end', id: 't' },
          { type: 'tool-call', toolCallId: `call-${++calls}`, toolName: 'lookup', input: '{}' },
          { type: 'finish', finishReason: { unified: 'tool-calls', raw: 'tool_calls' }, usage: usage(1, 1) },
        ]),
      }),
    });
    const lookup = tool({ inputSchema: z.object({}), execute: async () => 'not yet' });
    const agent = aiSdkAgent({ id: 'clerk', model, tools: { lookup }, maxSteps: 3 });

    await expect(lastValueFrom(invoke$(agent, 'go'))).resolves.toBe('again again again ');
    expect(model.doStreamCalls).toHaveLength(3);
    expect(agent.lastUsage).toMatchObject({ inputTokens: 3, finishReason: 'tool-calls' });
  });

  describe('in a durable run', () => {
    it('asks again under the same interrupt id after the process stopped while the approval was open, and completes once approved', async () => {
      const store = new MemoryRunStore();
      const refunded: number[] = [];
      const model = toolCallingModel([{ toolName: 'refund', input: { amount: 120 } }], answerFrom);
      const agent = aiSdkAgent({ id: 'cashier', model, tools: { refund: refundTool(refunded) } });
      const start = () => observeRun('refund', 'Refund Ada', (run) => invoke$(agent, 'Refund Ada', { run }), { store, runId: 'refund-ada' });

      const first = watch(start());
      const [asked] = await untilAsked(first.events);
      first.stop(); // the process stops while the person has not answered
      await settle();

      const second = watch(start());
      const [again] = await untilAsked(second.events);
      expect(again).toMatchObject({ interruptId: asked!.interruptId, action: 'refund', args: { amount: 120 } });
      expect(pendingInterrupts('refund-ada').map((open) => open.interruptId)).toEqual([asked!.interruptId]);
      answerInterrupt('refund-ada', asked!.interruptId, { approved: true });
      await second.done;

      expect(refunded).toEqual([120]);
      expect(rootEnd(second.events)).toMatchObject({ success: true, output: 'Let me check. {"refunded":120}' });
      // Resumed once more, the finished run asks nobody and runs nothing.
      const third: RunEvent[] = await lastValueFrom(start().pipe(toArray()));
      expect(new Set(interruptsOf(third).map((event) => event.interruptId))).toEqual(new Set([asked!.interruptId]));
      expect(pendingInterrupts('refund-ada')).toEqual([]);
      expect(rootEnd(third)).toMatchObject({ success: true, output: 'Let me check. {"refunded":120}' });
      expect(refunded).toEqual([120]);
    });
  });

  describe('configuration', () => {
    it('refuses tools that are no tool object map, a maxSteps below 1 and a bad approvalTimeout with a ConfigError', () => {
      const model = toolCallingModel([], answerFrom);
      expect(() => aiSdkAgent({ id: 'a', model, tools: [tool({ inputSchema: z.object({}) })] as never })).toThrow(ConfigError);
      expect(() => aiSdkAgent({ id: 'a', model, tools: { refund: 'refund' } as never })).toThrow(/tools must be an object of AI SDK tools/);
      expect(() => aiSdkAgent({ id: 'a', model, tools: {}, maxSteps: 0 })).toThrow(/maxSteps/);
      expect(() => aiSdkAgent({ id: 'a', model, tools: {}, approvalTimeout: -1 })).toThrow(/approvalTimeout/);
    });
  });
});
