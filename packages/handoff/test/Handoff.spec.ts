import { getEventListeners } from 'node:events';
import { TestScheduler } from 'rxjs/testing';
import { catchError, config as rxjsConfig, count, map, merge, NEVER, of, tap, timer, VirtualTimeScheduler } from 'rxjs';
import { z } from 'zod';
import { AgentError, ConfigError, CoordinationError, defineAgent, type Agent, type Message } from '@rxagents/core';
import { failingAgent, hangingAgent, recordingAgent, scriptedAgent } from '@rxagents/testing';
import {
  currentHandoffChain,
  Handoff,
  handoff,
  HandoffContractError,
  HandoffCycleError,
  HandoffDepthError,
  HandoffTimeoutError,
  handoffToolName,
  HandoffValidationError,
  parallelHandoffs$,
  runWithHandoffChain,
} from '@rxagents/handoff';

const testScheduler = () => new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
const source: Agent = defineAgent({ id: 'assistant', name: 'Assistant', chat: async () => '' });
const agentNamed = (name: string, details: { role?: string; goal?: string } = {}): Agent => defineAgent({ id: name.toLowerCase(), name, ...details, chat: async () => 'ok' });

describe('handoff() configuration', () => {
  it('handoff(config) and new Handoff(config) build the same thing', () => {
    const billing = agentNamed('Billing');
    expect(handoff({ agent: billing })).toBeInstanceOf(Handoff);
    expect(handoff({ agent: billing }).config).toEqual(new Handoff({ agent: billing }).config);
  });

  it('applies the eight defaults', () => {
    expect(handoff({ agent: agentNamed('Billing') }).config).toMatchObject({
      contextPolicy: 'summary',
      maxContextMessages: 10,
      maxContextTokens: 4000,
      preserveSystem: true,
      timeoutSeconds: 300,
      maxConcurrent: 5,
      detectCycles: true,
      maxDepth: 10,
    });
  });

  it('accepts all eight settings at once', () => {
    const config = handoff({
      agent: agentNamed('Billing'),
      contextPolicy: 'last_n',
      maxContextMessages: 10,
      maxContextTokens: 4000,
      preserveSystem: true,
      timeoutSeconds: 30,
      maxConcurrent: 3,
      detectCycles: true,
      maxDepth: 5,
    }).config;
    expect(config).toMatchObject({ contextPolicy: 'last_n', timeoutSeconds: 30, maxConcurrent: 3, maxDepth: 5 });
  });

  it.each([
    [{ maxConcurrent: 1.5 }, 'Handoff config: maxConcurrent must be an integer, got 1.5'],
    [{ contextPolicy: 'some' }, 'Handoff config: contextPolicy must be one of "none", "last_n", "summary", "full", got "some"'],
    [{ maxDepth: -1 }, 'Handoff config: maxDepth must be a non-negative integer, got -1'],
    [{ detectCycles: 'yes' }, 'Handoff config: detectCycles must be a boolean, got "yes"'],
    [{ name: 'has spaces' }, 'Handoff config: name must be 1 to 64 letters, digits, _ or -, got "has spaces"'],
    [{ timeoutSecs: 3 }, 'Handoff config: timeoutSecs is not a known option, got 3'],
  ])('refuses a bad config %p with a ConfigError', (bad, message) => {
    expect(() => handoff({ agent: agentNamed('Billing'), ...(bad as object) })).toThrow(ConfigError);
    expect(() => handoff({ agent: agentNamed('Billing'), ...(bad as object) })).toThrow(message);
  });

  it('names the likely intended key of a typo, and bounds every count', () => {
    expect(() => handoff({ agent: agentNamed('Billing'), maxConcurent: 2 } as never)).toThrow('Handoff config: maxConcurent is not a known option (did you mean maxConcurrent?)');
    for (const key of ['maxConcurrent', 'maxContextMessages', 'maxContextTokens', 'maxDepth']) {
      expect(() => handoff({ agent: agentNamed('Billing'), [key]: 2 ** 32 })).toThrow(new RegExp(`Handoff config: ${key} must be a(n| non-negative) integer .*at most 2147483647`));
    }
  });

  it('refuses an agent whose id is blank', () => {
    expect(() => handoff({ agent: defineAgent({ id: 'ok', chat: async () => '' }) && { id: '  ', chat: async () => '' } })).toThrow(/agent must be an agent \(an object with a non-blank id and a chat function\)/);
  });

  it('refuses a request with a blank chain entry, and a source without a non-blank id', async () => {
    const h = handoff({ agent: agentNamed('Billing') });
    await expect(h.execute(source, { input: 'x', handoffChain: [' '] })).rejects.toThrow(/Handoff request: handoffChain.0 must be a non-blank string/);
    await expect(h.execute({ id: ' ' }, { input: 'x' })).rejects.toThrow(/Handoff source: id must be a non-blank string/);
  });

  it('execute options are strict', async () => {
    const h = handoff({ agent: agentNamed('Billing') });
    await expect(h.execute(source, { input: 'x' }, { signl: AbortSignal.timeout(10) } as never)).rejects.toThrow('Handoff call options: signl is not a known option (did you mean signal?)');
  });

  it('refuses a missing agent', () => {
    expect(() => handoff({} as never)).toThrow(/agent must be an agent/);
  });

  it.each([null, undefined, 42])('matches and isEnabled$ refuse %p as the context with a ConfigError naming it, before any predicate reads it', (bad) => {
    const h = handoff({ agent: agentNamed('Billing'), condition: (context) => context.input.includes('invoice'), isEnabled: (context) => context.input !== '' });
    expect(() => h.matches(bad as never)).toThrow(ConfigError);
    expect(() => h.matches(bad as never)).toThrow(/^Handoff.matches: context must be an object/);
    expect(() => h.isEnabled$(bad as never)).toThrow(/^Handoff.isEnabled\$: context must be an object/);
  });
});

describe('generated tool name and description', () => {
  it.each([
    ['Billing', 'transfer_to_billing'],
    ['Support Bot', 'transfer_to_support_bot'],
    ['Tier-2 Ops', 'transfer_to_tier-2_ops'],
  ])('agent name %p becomes tool %p', (name, tool) => {
    expect(handoff({ agent: agentNamed(name) }).toolName).toBe(tool);
  });

  it('sanitises any name to a provider-legal tool name capped at 64 characters', () => {
    const long = handoff({ agent: agentNamed(`Très  Long! Agent ${'x'.repeat(100)}`) }).toolName;
    expect(long).toHaveLength(64);
    expect(long).toMatch(/^transfer_to_[a-z0-9_-]+$/);
    expect(long.startsWith('transfer_to_tres_long_agent_')).toBe(true);
  });

  it('falls back to the agent id when it has no name', () => {
    expect(handoff({ agent: defineAgent('billing-v2', async () => '') }).toolName).toBe('transfer_to_billing-v2');
  });

  it('a name with no Latin letter or digit falls back to the id; an id with none either gets a short hash of the id: distinct, legal, stable', () => {
    const agent = (id: string, name?: string): Agent => defineAgent({ id, ...(name === undefined ? {} : { name }), chat: async () => 'ok' });
    const agents = [agent('支払い'), agent('Оплата'), agent('🤖'), agent('請求', '支払い'), agent('billing-jp', '支払い'), agent('оплата')];
    const names = agents.map((each) => handoffToolName(each));
    expect(new Set(names).size).toBe(agents.length);
    for (const name of names) expect(name).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
    expect(names[4]).toBe('transfer_to_billing-jp');
    expect(names.filter((name) => /^transfer_to_agent_[0-9a-z]{7}$/.test(name))).toHaveLength(5);
    // The same id gives the same name, every time and whatever else the agent holds; the hash is of the id alone.
    expect(handoffToolName({ id: '支払い' })).toBe('transfer_to_agent_12hljbj');
    expect(handoffToolName({ id: '請求', name: '🤖' })).toBe(names[3]);
    expect(agents.map((each) => handoff({ agent: each }).toolName)).toEqual(names);
  });

  it('accents come off letters and full-width letters become plain ones, rather than being dropped', () => {
    expect(handoffToolName({ id: 'c', name: 'Café Desk' })).toBe('transfer_to_cafe_desk');
    expect(handoffToolName({ id: 'z', name: 'Zürich Ñandú' })).toBe('transfer_to_zurich_nandu');
    expect(handoffToolName({ id: 'f', name: 'Ｆｉｎａｎｃｅ' })).toBe('transfer_to_finance');
    // A letter that is not Latin once its accent is gone still names nothing: the id is used.
    expect(handoffToolName({ id: 'ru-billing', name: 'Счёт' })).toBe('transfer_to_ru-billing');
  });

  it('name: overrides the tool name', () => {
    expect(handoff({ agent: agentNamed('Billing'), name: 'escalate_billing' }).toolName).toBe('escalate_billing');
  });

  it('without role or goal the description is sparse', () => {
    expect(handoff({ agent: agentNamed('Support Bot') }).toolDescription).toBe('Transfer task to Support Bot');
  });

  it('role and goal make a richer description', () => {
    const rich = agentNamed('Support Bot', { role: 'Support Specialist', goal: 'Resolve customer tickets' });
    expect(handoff({ agent: rich }).toolDescription).toBe('Transfer task to Support Bot (Support Specialist) - Resolve customer tickets');
  });

  it('description: overrides the generated description', () => {
    expect(handoff({ agent: agentNamed('Billing'), description: 'Transfer for payment or billing questions' }).toolDescription).toBe('Transfer for payment or billing questions');
  });

  it('toolDefinition() is an OpenAI-style function tool with the JSON Schema of inputSchema', () => {
    const tool = handoff({ agent: agentNamed('Refunds'), inputSchema: z.object({ orderId: z.string(), reason: z.string().optional() }) }).toolDefinition();
    expect(tool).toEqual({
      type: 'function',
      function: {
        name: 'transfer_to_refunds',
        description: 'Transfer task to Refunds',
        parameters: { type: 'object', properties: { orderId: { type: 'string' }, reason: { type: 'string' } }, required: ['orderId'], additionalProperties: false },
      },
    });
    expect(handoff({ agent: agentNamed('Billing') }).toolDefinition().function.parameters).toEqual({
      type: 'object',
      properties: { reason: { type: 'string', description: 'Why the task is transferred (optional)' } },
      additionalProperties: false,
    });
  });

  it('without an inputSchema the tool takes an optional free-text reason (as PraisonAI), passed to the target as the model sent it', async () => {
    const target = recordingAgent('billing');
    const parameters = handoff({ agent: target }).toolDefinition().function.parameters as { required?: unknown };
    expect(parameters.required).toBeUndefined();
    await handoff({ agent: target }).execute(source, { input: 'x', arguments: '{"reason":"an invoice question"}' });
    expect(target.calls[0]?.options.metadata?.handoffArguments).toBe('{"reason":"an invoice question"}');
  });

  it("an explicit empty description is kept (as the OpenAI SDK), not refused", () => {
    const h = handoff({ agent: agentNamed('Billing'), description: '' });
    expect([h.toolDescription, h.toolDefinition().function.description]).toEqual(['', '']);
    expect(() => handoff({ agent: agentNamed('Billing'), description: 42 as never })).toThrow('Handoff config: description must be a string');
  });

  it('toolDefinition() describes what the model sends: a field with a default is not required, a transform by what it takes', () => {
    const inputSchema = z.object({ orderId: z.string().transform((id) => id.toUpperCase()), priority: z.enum(['low', 'high']).default('low') });
    expect(handoff({ agent: agentNamed('Refunds'), inputSchema }).toolDefinition().function.parameters).toEqual({
      type: 'object',
      properties: { orderId: { type: 'string' }, priority: { type: 'string', enum: ['low', 'high'], default: 'low' } },
      required: ['orderId'],
      additionalProperties: false,
    });
  });

  it('refuses, when built, an inputSchema that has no JSON Schema, rather than failing every routing call that offers it', () => {
    expect(() => handoff({ agent: agentNamed('Refunds'), inputSchema: z.object({ placedAt: z.date() }) })).toThrow(ConfigError);
    expect(() => handoff({ agent: agentNamed('Refunds'), inputSchema: z.object({ ids: z.set(z.string()) }) })).toThrow(
      /Handoff config: inputSchema must be representable as JSON Schema, the tool's parameters \(Set cannot be represented in JSON Schema\)/,
    );
  });
});

describe('Handoff.execute', () => {
  it('runs the target with the input and the selected messages in ChatOptions.context, without mutating it', async () => {
    const billing = recordingAgent('billing', async () => 'paid');
    const messages: Message[] = [
      { role: 'system', content: 'You are a helpful assistant' },
      { role: 'user', content: 'one' },
      { role: 'assistant', content: 'two' },
      { role: 'user', content: 'three' },
      { role: 'assistant', content: 'four' },
    ];
    const outcome = await handoff({ agent: billing }).execute(source, { input: 'invoice?', messages });
    expect(billing.inputs).toEqual(['invoice?']);
    expect(billing.calls[0]?.options.context).toEqual([messages[0], messages[2], messages[3], messages[4]]);
    expect(outcome).toEqual({
      success: true,
      agentId: 'billing',
      input: 'invoice?',
      output: 'paid',
      startedAt: expect.any(Number),
      durationMs: expect.any(Number),
      handedOffTo: 'billing',
      durationSeconds: expect.any(Number),
      context: { input: 'invoice?', messages: [messages[0], messages[2], messages[3], messages[4]], handoffChain: ['assistant'] },
    });
    expect(Object.keys(billing)).not.toContain('history');
  });

  it('durationMs is measured on the scheduler; durationSeconds is the same time in seconds', () => {
    testScheduler().run(({ expectObservable }) => {
      const slow = scriptedAgent('slow', { reply: 'done', delay: 1500 });
      expectObservable(handoff({ agent: slow }).execute$(source, { input: 'x' }).pipe(map((o) => [o.durationMs, o.durationSeconds]))).toBe('1500ms (d|)', { d: [1500, 1.5] });
    });
  });

  it('a target that fails resolves with success false, no output and the error', async () => {
    const outcome = await handoff({ agent: failingAgent('broken', new Error('down'), { mode: 'reject' }) }).execute(source, { input: 'x' });
    expect(outcome).toMatchObject({ success: false, agentId: 'broken', input: 'x', handedOffTo: 'broken' });
    expect(outcome).not.toHaveProperty('output');
    expect(outcome.error).toBeInstanceOf(AgentError);
  });

  it('the result carries the extended chain; passing result.context onward threads it by hand', async () => {
    const billing = recordingAgent('billing', async () => 'paid');
    const refunds = recordingAgent('refunds', async () => 'refunded');
    const first = await handoff({ agent: billing }).execute(source, { input: 'x' });
    const second = await handoff({ agent: refunds }).execute(billing, first.context);
    expect(first.context.handoffChain).toEqual(['assistant']);
    expect(second.context.handoffChain).toEqual(['assistant', 'billing']);
    expect(refunds.calls[0]?.options.metadata?.handoffChain).toEqual(['assistant', 'billing']);
    await expect(handoff({ agent: source }).execute(refunds, second.context)).rejects.toBeInstanceOf(HandoffCycleError);
  });

  it('unsubscribing aborts the target; an aborted signal rejects with its reason', async () => {
    const stuck = hangingAgent('stuck');
    handoff({ agent: stuck }).execute$(source, { input: 'x' }).subscribe().unsubscribe();
    expect(stuck.aborted).toBe(true);
    const controller = new AbortController();
    const pending = handoff({ agent: stuck }).execute(source, { input: 'x' }, { signal: controller.signal });
    controller.abort(new Error('user left'));
    await expect(pending).rejects.toThrow('user left');
    expect(stuck.abortCount).toBe(2);
  });

  it('refuses a bad request with a ConfigError', async () => {
    await expect(handoff({ agent: agentNamed('Billing') }).execute(source, { input: 42 } as never)).rejects.toThrow('Handoff request: input must be a string, got 42');
  });

  it('an inputFilter that returns no array, or a countTokens that returns no count, rejects with a HandoffContractError', async () => {
    const billing = agentNamed('Billing');
    const history: Message[] = [{ role: 'user', content: 'hi' }];
    await expect(handoff({ agent: billing, inputFilter: (() => undefined) as never }).execute(source, { input: 'x', messages: history })).rejects.toThrow(
      /the inputFilter of transfer_to_billing returned undefined; it must return an array of messages/,
    );
    await expect(handoff({ agent: billing, countTokens: () => Number.NaN }).execute(source, { input: 'x', messages: history })).rejects.toBeInstanceOf(HandoffContractError);
  });

  it('an inputFilter whose array holds something that is not a message rejects with a HandoffContractError naming it, before the target is touched', async () => {
    const billing = recordingAgent('billing', async () => 'ok');
    const history: Message[] = [{ role: 'user', content: 'hi' }];
    await expect(handoff({ agent: billing, inputFilter: (() => [null]) as never }).execute(source, { input: 'x', messages: history })).rejects.toThrow(
      /the inputFilter of transfer_to_billing returned null at index 0; it must return an array of messages/,
    );
    const contentless = (messages: readonly Message[]) => messages.map((message) => ({ ...message, content: undefined })) as never;
    await expect(handoff({ agent: billing, inputFilter: contentless }).execute(source, { input: 'x', messages: history })).rejects.toBeInstanceOf(HandoffContractError);
    expect(billing.calls).toHaveLength(0);
  });

  it('a throwing callback leaves the outcome as it is, and its error reaches RxJS\'s onUnhandledError when one is set', async () => {
    const reported: unknown[] = [];
    const previous = rxjsConfig.onUnhandledError;
    rxjsConfig.onUnhandledError = (error) => void reported.push(error);
    try {
      const oops = new Error('listener bug');
      const outcome = await handoff({ agent: agentNamed('Billing'), onHandoff: () => { throw oops; }, onComplete: () => { throw oops; } }).execute(source, { input: 'x' });
      expect(outcome.success).toBe(true);
      expect(reported).toEqual([oops, oops]);
    } finally {
      rxjsConfig.onUnhandledError = previous;
    }
  });

  it('calls onHandoff, onComplete and onError; a throwing callback changes nothing and is reported as unhandled', async () => {
    const reported: unknown[] = [];
    const previous = rxjsConfig.onUnhandledError;
    rxjsConfig.onUnhandledError = (error) => void reported.push(error);
    try {
      const events: string[] = [];
      const h = handoff({
        agent: agentNamed('Billing'),
        onHandoff: (from, context) => {
          events.push(`handoff ${from.id} ${context.input}`);
          throw new Error('callback bug');
        },
        onComplete: (outcome) => events.push(`complete ${outcome.output}`),
        onError: (error) => events.push(`error ${(error as Error).name}`),
      });
      await expect(h.execute(source, { input: 'x' })).resolves.toMatchObject({ success: true });
      await expect(h.execute(source, { input: 'y', handoffChain: ['billing'] })).rejects.toBeInstanceOf(HandoffCycleError);
      const broken = handoff({ agent: failingAgent('broken'), onError: () => { throw new Error('callback bug'); } });
      await expect(broken.execute(source, { input: 'z' })).resolves.toMatchObject({ success: false });
      expect(events).toEqual(['handoff assistant x', 'complete ok', 'error HandoffCycleError']);
      expect(reported.map((error) => (error as Error).message)).toEqual(['callback bug', 'callback bug']);
    } finally {
      rxjsConfig.onUnhandledError = previous;
    }
  });
});

describe('safety guards', () => {
  it('cycle detection prevents A -> B -> A, with context.cycle_path, before touching the target', async () => {
    const a = recordingAgent('a');
    const error = await handoff({ agent: a }).execute({ id: 'b' }, { input: 'x', handoffChain: ['a'] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HandoffCycleError);
    expect((error as HandoffCycleError).context).toEqual({ cycle_path: ['a', 'b', 'a'], source_agent: 'b', target_agent: 'a' });
    expect((error as HandoffCycleError).retryable).toBe(false);
    expect(a.calls).toHaveLength(0);
  });

  it('a handoff to the source itself is a cycle', async () => {
    await expect(handoff({ agent: source }).execute(source, { input: 'x' })).rejects.toThrow('Handoff cycle detected: assistant -> assistant');
  });

  it('detectCycles: false allows revisiting an agent', async () => {
    await expect(handoff({ agent: agentNamed('A'), detectCycles: false }).execute({ id: 'b' }, { input: 'x', handoffChain: ['a'] })).resolves.toMatchObject({ success: true });
  });

  it('depth limit: maximum 10 handoffs in a chain by default, with context.max_depth and current_depth', async () => {
    const target = recordingAgent('target');
    const nine = Array.from({ length: 9 }, (_, i) => `agent-${i}`);
    await expect(handoff({ agent: target }).execute({ id: 'src' }, { input: 'x', handoffChain: nine })).resolves.toMatchObject({ success: true });
    const error = await handoff({ agent: target }).execute({ id: 'src' }, { input: 'x', handoffChain: [...nine, 'agent-9'] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HandoffDepthError);
    expect((error as HandoffDepthError).context).toEqual({ max_depth: 10, current_depth: 10, source_agent: 'src', target_agent: 'target' });
    expect(target.calls).toHaveLength(1);
  });

  it('maxDepth overrides the limit, and a depth of 0 refuses every handoff', async () => {
    await expect(handoff({ agent: agentNamed('T'), maxDepth: 2 }).execute({ id: 's' }, { input: 'x', handoffChain: ['a', 'b'] })).rejects.toBeInstanceOf(HandoffDepthError);
    await expect(handoff({ agent: agentNamed('T'), maxDepth: 0 }).execute({ id: 's' }, { input: 'x' })).rejects.toBeInstanceOf(HandoffDepthError);
  });

  it('the cycle check runs before the depth check', async () => {
    await expect(handoff({ agent: agentNamed('A'), maxDepth: 1 }).execute({ id: 'b' }, { input: 'x', handoffChain: ['a', 'c'] })).rejects.toBeInstanceOf(HandoffCycleError);
  });

  it('a rejected handoff never consumes a chain slot', async () => {
    const seen: (readonly string[])[] = [];
    const probe = defineAgent('probe', async () => {
      seen.push(currentHandoffChain());
      return 'ok';
    });
    await runWithHandoffChain(['root'], async () => {
      await expect(handoff({ agent: agentNamed('Root') }).execute(source, { input: 'x' })).rejects.toBeInstanceOf(HandoffCycleError);
      await expect(handoff({ agent: agentNamed('Deep'), maxDepth: 1 }).execute(source, { input: 'x' })).rejects.toBeInstanceOf(HandoffDepthError);
      expect(currentHandoffChain()).toEqual(['root']);
      await handoff({ agent: probe }).execute(source, { input: 'x' });
    });
    expect(seen).toEqual([['root', 'assistant']]);
  });

  it('accepts the legacy aliases chain, depth and max_depth', async () => {
    const h = handoff({ agent: agentNamed('T') });
    await expect(h.execute({ id: 's' }, { input: 'x', chain: ['t'] })).rejects.toBeInstanceOf(HandoffCycleError);
    await expect(h.execute({ id: 's' }, { input: 'x', depth: 10 })).rejects.toMatchObject({ context: { max_depth: 10, current_depth: 10 } });
    await expect(h.execute({ id: 's' }, { input: 'x', max_depth: 1, handoffChain: ['a'] })).rejects.toBeInstanceOf(HandoffDepthError);
  });

  it('times out after timeoutSeconds on virtual time with a retryable HandoffTimeoutError, aborting the target', () => {
    testScheduler().run(({ expectObservable, flush }) => {
      const stuck = hangingAgent('stuck');
      expectObservable(handoff({ agent: stuck, timeoutSeconds: 30 }).execute$(source, { input: 'x' })).toBe('30s #', undefined, expect.any(HandoffTimeoutError));
      flush();
      expect(stuck.aborted).toBe(true);
    });
    const error = new HandoffTimeoutError('stuck', 30_000);
    expect([error.timeoutMs, error.timeoutSeconds, error.message]).toEqual([30_000, 30, 'Handoff to "stuck" timed out after 30000 ms']);
    expect(new HandoffTimeoutError('stuck', 20, undefined, { sourceAgentId: 'triage', unit: 's' }).message).toBe('Handoff from "triage" to "stuck" timed out after 0.02s');
    expect(error.isRetryable).toBe(true);
    expect(error).toBeInstanceOf(CoordinationError);
  });

  it('timeout in ms is the canonical setting; timeoutSeconds is converted once; both must agree', () => {
    testScheduler().run(({ expectObservable }) => {
      expectObservable(handoff({ agent: hangingAgent('stuck'), timeout: 250 }).execute$(source, { input: 'x' })).toBe('250ms #', undefined, expect.any(HandoffTimeoutError));
    });
    expect(handoff({ agent: hangingAgent('stuck'), timeout: 30_000 }).config).toMatchObject({ timeout: 30_000, timeoutSeconds: 30 });
    expect(handoff({ agent: hangingAgent('stuck'), timeoutSeconds: 30 }).config).toMatchObject({ timeout: 30_000, timeoutSeconds: 30 });
    expect(handoff({ agent: hangingAgent('stuck'), timeoutSeconds: 0 }).config.timeout).toBe(Infinity);
    expect(handoff({ agent: hangingAgent('stuck'), timeout: 30_000, timeoutSeconds: 30 }).config.timeout).toBe(30_000);
    expect(() => handoff({ agent: hangingAgent('stuck'), timeout: 30_000, timeoutSeconds: 30_000 })).toThrow(
      /Handoff config: timeoutSeconds must agree with timeout \(30000 ms\) when both are given; give only timeout, got 30000/,
    );
    expect(() => handoff({ agent: hangingAgent('stuck'), timeout: 0 })).toThrow(/Handoff config: timeout must be/);
    expect(() => handoff({ agent: hangingAgent('stuck'), timeuot: 5 } as never)).toThrow(/did you mean timeout\?/);
  });

  it('a HandoffTimeoutError carries the limit in ms (and in seconds)', () => {
    testScheduler().run(({ expectObservable }) => {
      const timedOut$ = handoff({ agent: hangingAgent('stuck'), timeoutSeconds: 2 }).execute$(source, { input: 'x' }).pipe(
        catchError((error: HandoffTimeoutError) => of(`${error.timeoutMs}:${error.timeoutSeconds}`)),
      );
      expectObservable(timedOut$).toBe('2s (e|)', { e: '2000:2' });
    });
  });

  it('times out after 5 minutes by default', () => {
    testScheduler().run(({ expectObservable }) => {
      expectObservable(handoff({ agent: hangingAgent('stuck') }).execute$(source, { input: 'x' }).pipe(map(() => 'value'))).toBe('5m #', undefined, expect.any(HandoffTimeoutError));
    });
  });

  it('timeoutSeconds <= 0 disables the timeout', () => {
    testScheduler().run(({ expectObservable }) => {
      expectObservable(handoff({ agent: hangingAgent('stuck'), timeoutSeconds: 0 }).execute$(source, { input: 'x' }), '^ 60m !').toBe('');
    });
  });

  it('refuses a timeoutSeconds whose milliseconds a timer cannot wait (30 days), naming the field', () => {
    const thirtyDays = 30 * 24 * 3600;
    expect(() => handoff({ agent: hangingAgent('stuck'), timeoutSeconds: thirtyDays })).toThrow(ConfigError);
    expect(() => handoff({ agent: hangingAgent('stuck'), timeoutSeconds: thirtyDays })).toThrow(
      `Handoff config: timeoutSeconds must be a number of seconds of at most 2147483.647 (about 24.8 days), 0 or less for no timeout, or Infinity for no timeout, got ${thirtyDays}`,
    );
    expect(() => handoff({ agent: hangingAgent('stuck'), timeoutSeconds: Number.NaN })).toThrow(/timeoutSeconds must be a number of seconds/);
    expect(handoff({ agent: hangingAgent('stuck'), timeoutSeconds: 2_147_483.647 }).config.timeoutSeconds).toBe(2_147_483.647);
  });

  it('timeoutSeconds: Infinity never times out', () => {
    testScheduler().run(({ expectObservable }) => {
      expectObservable(handoff({ agent: hangingAgent('stuck'), timeoutSeconds: Infinity }).execute$(source, { input: 'x' }), '^ 60m !').toBe('');
    });
  });

  it('a target that times out inside does not count as this handoff timing out', () => {
    testScheduler().run(({ expectObservable }) => {
      const inner = scriptedAgent('inner', { reply: 'late', delay: 50 });
      const outer = defineAgent('outer', () => handoff({ agent: inner, timeoutSeconds: 0.01 }).execute$({ id: 'outer' }, { input: 'x' }).pipe(map((o) => String(o.output))));
      expectObservable(handoff({ agent: outer, timeoutSeconds: 1 }).execute$(source, { input: 'x' }).pipe(map((o) => `${o.success}:${(o.error as AgentError).cause instanceof HandoffTimeoutError}`))).toBe(
        '10ms (r|)',
        { r: 'false:true' },
      );
    });
  });

  it('an argument that does not fit inputSchema fails with a non-retryable HandoffValidationError before the target is touched', async () => {
    const refunds = recordingAgent('refunds', async () => 'ok', { name: 'Refunds' });
    const h = handoff({ agent: refunds, inputSchema: z.object({ orderId: z.string() }) });
    const error = await h.execute(source, { input: 'x', arguments: { orderId: 42 } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HandoffValidationError);
    expect((error as HandoffValidationError).retryable).toBe(false);
    expect((error as HandoffValidationError).message).toMatch(/^Invalid input for transfer_to_refunds: orderId: /);
    await expect(h.execute(source, { input: 'x', arguments: '{not json' })).rejects.toThrow(/arguments are not valid JSON/);
    expect(refunds.calls).toHaveLength(0);
    const outcome = await h.execute(source, { input: 'x', arguments: '{"orderId":"42"}' });
    expect(outcome.context.arguments).toEqual({ orderId: '42' });
  });
});

describe('concurrency', () => {
  const slowAgent = (id: string) => scriptedAgent(id, { reply: id, delay: 10 });

  it('each Handoff instance has its own semaphore (maxConcurrent)', () => {
    testScheduler().run(({ expectObservable }) => {
      const h = handoff({ agent: slowAgent('billing'), maxConcurrent: 1 });
      const two$ = merge(h.execute$(source, { input: '1' }), h.execute$(source, { input: '2' })).pipe(map((o) => o.durationSeconds * 1000));
      expectObservable(two$).toBe('10ms a 9ms (b|)', { a: 10, b: 20 });
    });
  });

  it('two Handoff instances at 1 each run in parallel: not process-wide', () => {
    testScheduler().run(({ expectObservable }) => {
      const one = handoff({ agent: slowAgent('billing'), maxConcurrent: 1 });
      const other = handoff({ agent: slowAgent('billing'), maxConcurrent: 1 });
      expectObservable(merge(one.execute$(source, { input: '1' }), other.execute$(source, { input: '2' })).pipe(map(() => 'x'))).toBe('10ms (xx|)');
    });
  });

  it('maxConcurrent <= 0 is unlimited', () => {
    testScheduler().run(({ expectObservable }) => {
      const h = handoff({ agent: slowAgent('billing'), maxConcurrent: 0 });
      const many$ = merge(...Array.from({ length: 20 }, (_, i) => h.execute$(source, { input: String(i) }))).pipe(map(() => 'x'));
      expectObservable(many$.pipe(map(() => 1))).toBe(`10ms (${'a'.repeat(20)}|)`, { a: 1 });
    });
  });

  it('a queued handoff that is cancelled never touches the target and frees its turn', () => {
    testScheduler().run(({ expectObservable, flush }) => {
      const billing = scriptedAgent('billing', { reply: 'ok', delay: 10 });
      const h = handoff({ agent: billing, maxConcurrent: 1 });
      h.execute$(source, { input: 'first' }).subscribe();
      h.execute$(source, { input: 'cancelled' }).subscribe().unsubscribe();
      expectObservable(h.execute$(source, { input: 'third' }).pipe(map((o) => o.durationSeconds * 1000))).toBe('20ms (t|)', { t: 20 });
      flush();
      expect(billing.inputs).toEqual(['first', 'third']);
    });
  });

  it('a holder that times out, fails or is cancelled releases its permit, so the next handoff runs', () => {
    testScheduler().run(({ expectObservable, cold }) => {
      const next = (h: Handoff) => h.execute$(source, { input: 'next' }).pipe(map((o) => o.output));
      const timedOut = handoff({ agent: defineAgent('t', (input) => (input === 'next' ? of('ok') : NEVER)), maxConcurrent: 1, timeoutSeconds: 0.01 });
      timedOut.execute$(source, { input: 'hang' }).subscribe({ error: () => undefined });
      expectObservable(next(timedOut)).toBe('10ms (o|)', { o: 'ok' });
      const failing = handoff({ agent: defineAgent('f', (input) => (input === 'next' ? of('ok') : cold('5ms #'))), maxConcurrent: 1 });
      failing.execute$(source, { input: 'fail' }).subscribe();
      expectObservable(next(failing)).toBe('5ms (o|)', { o: 'ok' });
      const cancelled = handoff({ agent: defineAgent('c', (input) => (input === 'next' ? of('ok') : cold('-'))), maxConcurrent: 1 });
      const holder = cancelled.execute$(source, { input: 'hold' }).subscribe();
      cold('7ms a').subscribe(() => holder.unsubscribe());
      expectObservable(next(cancelled)).toBe('7ms (o|)', { o: 'ok' });
    });
  });

  it('drains thousands of queued handoffs whose targets answer synchronously without growing the stack', () => {
    testScheduler().run(({ expectObservable }) => {
      let calls = 0;
      const cached = defineAgent('cached', () => (calls++ === 0 ? timer(10).pipe(map(() => 'fresh')) : of('cached')));
      const h = handoff({ agent: cached, maxConcurrent: 1 });
      const all$ = merge(...Array.from({ length: 5000 }, (_, i) => h.execute$(source, { input: String(i) })));
      expectObservable(all$.pipe(count((o) => o.success))).toBe('10ms (n|)', { n: 5000 });
    });
  });

  describe('cancelling never starts work', () => {
    const counting = () => {
      const started: string[] = [];
      return { started, agent: defineAgent('billing', (input) => (started.push(input), NEVER)) };
    };

    it('unsubscribing 1,000 queued handoffs at once starts none of the queued targets', () => {
      testScheduler().run(({ flush }) => {
        const { started, agent } = counting();
        const h = handoff({ agent, maxConcurrent: 2 });
        const all = merge(...Array.from({ length: 1_000 }, (_, i) => h.execute$(source, { input: String(i) }))).subscribe();
        expect(started).toEqual(['0', '1']);
        all.unsubscribe();
        flush();
        expect(started).toEqual(['0', '1']);
      });
    });

    it('aborting a signal shared by 1,000 queued calls starts none of the queued targets', async () => {
      const scheduler = new VirtualTimeScheduler();
      const { started, agent } = counting();
      const h = handoff({ agent, maxConcurrent: 2, scheduler });
      const controller = new AbortController();
      const calls = Array.from({ length: 1_000 }, (_, i) => h.execute(source, { input: String(i) }, { signal: controller.signal }));
      // One listener for the signal, not one per queued call (Node warns past 10: MaxListenersExceededWarning).
      expect(getEventListeners(controller.signal, 'abort')).toHaveLength(1);
      controller.abort(new Error('user left'));
      scheduler.flush();
      const settled = await Promise.allSettled(calls);
      expect(settled.every((s) => s.status === 'rejected')).toBe(true);
      expect(started).toEqual(['0', '1']);
    });

    it('parallelHandoffs cancelled while its tasks queue on a shared handoff starts none of them', () => {
      testScheduler().run(({ flush }) => {
        const { started, agent } = counting();
        const shared = handoff({ agent, maxConcurrent: 1 });
        const tasks = Array.from({ length: 50 }, (_, i) => [shared, String(i)] as const);
        const run = parallelHandoffs$(source, tasks, { maxConcurrent: 0 }).subscribe();
        run.unsubscribe();
        flush();
        expect(started).toEqual(['0']);
      });
    });
  });

  describe('stack safety of synchronous re-entrant handoffs', () => {
    /** A target that, until n reaches 0, hands off to itself synchronously through `self`. */
    const countdown = (config: { maxConcurrent: number; maxDepth: number }, fresh: boolean): Handoff => {
      let self: Handoff | undefined;
      const agent = defineAgent('countdown', (input) => {
        const n = Number(input);
        if (n === 0) return of('liftoff');
        const request = fresh ? { input: String(n - 1), handoffChain: [] } : { input: String(n - 1) };
        return (self as Handoff).execute$({ id: 'countdown' }, request).pipe(map((o) => (o.success ? String(o.output) : `failed: ${String(o.error)}`)));
      });
      self = handoff({ agent, detectCycles: false, timeoutSeconds: 0, ...config });
      return self;
    };
    const run = (h: Handoff, n: number): unknown => {
      let result: unknown = 'no result';
      h.execute$(source, { input: String(n) }).subscribe({ next: (o) => (result = o.output), error: (error: unknown) => (result = error) });
      return result;
    };

    it('10,000 levels deep ends with the result, synchronously', () => {
      // Each level resumes a fresh chain, so the chain (and its depth check) stays short while the nesting is 10,000 deep.
      expect(run(countdown({ maxConcurrent: 0, maxDepth: 10 }, true), 10_000)).toBe('liftoff');
    });

    it('1,000 levels deep through the re-entry path (the chain growing by one a level, maxConcurrent: 1)', () => {
      expect(run(countdown({ maxConcurrent: 1, maxDepth: 1_001 }, false), 1_000)).toBe('liftoff');
    });
  });

  describe('re-entrant fan-out (detectCycles: false)', () => {
    it('re-entries share their caller\'s permit along one chain; a fan-out takes turns on it', () => {
      let active = 0;
      let most = 0;
      testScheduler().run(({ expectObservable }) => {
        let self: Handoff | undefined;
        // Each call fans out 10 re-entries until depth 2: 1 + 10 + 100 calls in all.
        const fanOut = defineAgent('fan', (input) => {
          active += 1;
          most = Math.max(most, active);
          const depth = Number(input);
          const own$ = timer(1).pipe(map(() => 'leaf'));
          const work$ =
            depth === 2 ? own$ : merge(...Array.from({ length: 10 }, () => (self as Handoff).execute$({ id: 'fan' }, { input: String(depth + 1) }))).pipe(count(), map(String));
          const done = (): void => {
            active -= 1;
          };
          // Counted down before the completion travels on (and frees the permit for the next branch).
          return work$.pipe(tap({ complete: done, error: done, unsubscribe: done }));
        });
        self = handoff({ agent: fanOut, detectCycles: false, maxConcurrent: 1 });
        // The 100 leaves take turns: 100 ms, not 1 ms with 111 targets at once.
        expectObservable(self.execute$(source, { input: '0' }).pipe(map((o) => o.output))).toBe('100ms (o|)', { o: '10' });
      });
      // One chain at a time: the caller, one child, one grandchild.
      expect(most).toBe(3);
    });
  });

  describe('recursion through one instance (detectCycles: false)', () => {
    const recursive = (settings: { maxConcurrent: number; maxDepth?: number }): Handoff => {
      let self: Handoff | undefined;
      const countdown = defineAgent('countdown', (input) => {
        const n = Number(input);
        if (n === 0) return timer(10).pipe(map(() => 'liftoff'));
        return (self as Handoff).execute$({ id: 'countdown' }, { input: String(n - 1) }).pipe(map((o) => `${n}>${o.success ? o.output : 'failed'}`));
      });
      self = handoff({ agent: countdown, detectCycles: false, ...settings });
      return self;
    };

    it('a target re-entering its own handoff does not wait for a permit its caller holds', () => {
      testScheduler().run(({ expectObservable }) => {
        const h = recursive({ maxConcurrent: 2 });
        expectObservable(h.execute$(source, { input: '6' }).pipe(map((o) => o.output))).toBe('10ms (o|)', { o: '6>5>4>3>2>1>liftoff' });
      });
    });

    it('so maxDepth, not the semaphore, ends a runaway recursion', () => {
      testScheduler().run(({ expectObservable }) => {
        const h = recursive({ maxConcurrent: 1, maxDepth: 4 });
        expectObservable(h.execute$(source, { input: '9' }).pipe(map((o) => o.output))).toBe('(o|)', { o: '9>8>7>failed' });
      });
    });

    it('an indirect re-entry (T -> X -> T through another handoff) also runs on its caller\'s permit', () => {
      testScheduler().run(({ expectObservable }) => {
        let toT: Handoff | undefined;
        let toX: Handoff | undefined;
        const t = defineAgent('t', (input) =>
          input === 'done' ? timer(5).pipe(map(() => 'end')) : (toX as Handoff).execute$({ id: 't' }, { input: 'x' }).pipe(map((o) => `t>${o.output}`)),
        );
        const x = defineAgent('x', () => (toT as Handoff).execute$({ id: 'x' }, { input: 'done' }).pipe(map((o) => `x>${o.output}`)));
        toT = handoff({ agent: t, detectCycles: false, maxConcurrent: 1 });
        toX = handoff({ agent: x, detectCycles: false, maxConcurrent: 1 });
        expectObservable(toT.execute$(source, { input: 'start' }).pipe(map((o) => o.output))).toBe('5ms (o|)', { o: 't>x>end' });
      });
    });

    it('independent callers still share the permits', () => {
      testScheduler().run(({ expectObservable }) => {
        const h = recursive({ maxConcurrent: 1 });
        const two$ = merge(h.execute$(source, { input: '1' }), h.execute$({ id: 'other' }, { input: '1' })).pipe(map((o) => o.context.handoffChain[0]));
        expectObservable(two$).toBe('10ms a 9ms (b|)', { a: 'assistant', b: 'other' });
      });
    });
  });

  it('a timeout bounds the target turn, not the wait for the semaphore', () => {
    testScheduler().run(({ expectObservable }) => {
      const h = handoff({ agent: slowAgent('billing'), maxConcurrent: 1, timeoutSeconds: 0.015 });
      expectObservable(merge(h.execute$(source, { input: '1' }), h.execute$(source, { input: '2' })).pipe(map((o) => o.success))).toBe('10ms a 9ms (a|)', { a: true });
    });
  });
});
