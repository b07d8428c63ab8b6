import { answerInterrupt, invoke$, observeRun, type RunEventOf } from '@rxagents/core';
import { aiSdkAgent } from '@rxagents/ai-sdk';
import { tool } from 'ai';
import { z } from 'zod';
import { describeResult, rootEnd, toolCallingModel, untilAsked, watch } from './toolModels';

const operations = (events: readonly { type: string }[]) =>
  (events as RunEventOf<'custom'>[]).filter((event) => event.type === 'custom' && event.name.startsWith('gen_ai.')).map((event) => ({ name: event.name, data: event.data, callId: event.callId }));

describe('aiSdkAgent says its model calls and tool executions', () => {
  it('a gen_ai.chat event per model call and a gen_ai.execute_tool per tool run, under the agent call, each with when it started', async () => {
    const lookup = tool({ inputSchema: z.object({ city: z.string() }), execute: async () => ({ sunny: true }) });
    const failing = tool({
      inputSchema: z.object({}),
      execute: async (): Promise<string> => {
        throw new Error('no forecast today');
      },
    });
    const model = toolCallingModel([{ toolName: 'lookup', input: { city: 'Oslo' } }, { toolName: 'forecast', input: {} }], (results) => results.map(describeResult).join(' '));
    const agent = aiSdkAgent({ id: 'weather', model, tools: { lookup, forecast: failing } });
    const run = watch(observeRun('weather', 'Oslo?', (run) => invoke$(agent, 'Oslo?', { run })));
    await run.done;

    expect(rootEnd(run.events)).toMatchObject({ success: true });
    const callId = run.events.find((event) => event.type === 'call-start')?.callId;
    const said = operations(run.events);
    expect(said.map(({ name }) => name)).toEqual(['gen_ai.execute_tool', 'gen_ai.execute_tool', 'gen_ai.chat', 'gen_ai.chat']);
    expect(said.every((each) => each.callId === callId)).toBe(true);
    const byTool = new Map(said.slice(0, 2).map((each) => [(each.data as { toolName: string }).toolName, each.data]));
    expect(byTool.get('lookup')).toEqual({ toolName: 'lookup', toolCallId: expect.any(String), startedAt: expect.any(Number) });
    expect(byTool.get('forecast')).toMatchObject({ toolName: 'forecast', error: 'no forecast today' });
    expect(said[2]!.data).toMatchObject({ model: 'mock-model-id', finishReason: 'tool-calls', inputTokens: 10, outputTokens: 3 });
    expect(said[3]!.data).toMatchObject({ finishReason: 'stop', inputTokens: 20, outputTokens: 5 });
  });

  it('a tool held for approval starts when the loop goes on after the decision', async () => {
    const refund = tool({ inputSchema: z.object({ amount: z.number() }), needsApproval: true, execute: async () => 'refunded' });
    const model = toolCallingModel([{ toolName: 'refund', input: { amount: 5 } }], (results) => results.map(describeResult).join(''));
    const agent = aiSdkAgent({ id: 'cashier', model, tools: { refund } });
    const run = watch(observeRun('refund', 'go', (run) => invoke$(agent, 'go', { run })));
    const [asked] = await untilAsked(run.events);
    answerInterrupt(asked!.runId, asked!.interruptId, { approved: true });
    await run.done;
    const answeredAt = run.events.find((event) => event.type === 'interrupt-end')!.at;
    const executed = operations(run.events).find((each) => each.name === 'gen_ai.execute_tool');
    expect(executed?.data).toMatchObject({ toolName: 'refund' });
    expect((executed?.data as { startedAt: number }).startedAt).toBeGreaterThanOrEqual(answeredAt);
  });

  it('says nothing outside a run', async () => {
    const model = toolCallingModel([], () => 'done');
    const agent = aiSdkAgent({ id: 'quiet', model, tools: {} });
    await new Promise<void>((resolve, reject) => invoke$(agent, 'go').subscribe({ complete: resolve, error: reject }));
  });
});
