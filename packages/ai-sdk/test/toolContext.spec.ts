import { emitCustom, invoke$, observeRun, type RunContext } from '@rxagents/core';
import { aiSdkAgent } from '@rxagents/ai-sdk';
import { tool } from 'ai';
import { z } from 'zod';
import { rootEnd, toolCallingModel, watch, describeResult } from './toolModels';

describe("aiSdkAgent gives every tool the call's run", () => {
  it('as experimental_context.run: a custom event the tool emits sits under the agent call', async () => {
    const lookup = tool({
      inputSchema: z.object({ city: z.string() }),
      execute: async ({ city }, { experimental_context }) => {
        emitCustom((experimental_context as { run?: RunContext }).run, 'looked-up', { city });
        return { sunny: true };
      },
    });
    const model = toolCallingModel([{ toolName: 'lookup', input: { city: 'Oslo' } }], (results) => results.map(describeResult).join(''));
    const agent = aiSdkAgent({ id: 'weather', model, tools: { lookup } });

    const run = watch(observeRun('weather', 'Oslo?', (run) => invoke$(agent, 'Oslo?', { run })));
    await run.done;

    const call = run.events.find((event) => event.type === 'call-start');
    expect(run.events.filter((event) => event.type === 'custom' && event.name === 'looked-up')).toEqual([expect.objectContaining({ name: 'looked-up', data: { city: 'Oslo' }, callId: call?.callId })]);
    expect(rootEnd(run.events)).toMatchObject({ success: true, output: 'Let me check. {"sunny":true}' });
  });

  it('as experimental_context.run undefined outside a run', async () => {
    const seen: unknown[] = [];
    const probe = tool({
      inputSchema: z.object({}),
      execute: async (_input, { experimental_context }) => {
        seen.push(experimental_context);
        return 'ok';
      },
    });
    const agent = aiSdkAgent({ id: 'probe', model: toolCallingModel([{ toolName: 'probe', input: {} }], () => 'done'), tools: { probe } });
    await new Promise<void>((resolve, reject) => invoke$(agent, 'go').subscribe({ complete: resolve, error: reject }));
    expect(seen).toEqual([{ run: undefined }]);
  });
});
