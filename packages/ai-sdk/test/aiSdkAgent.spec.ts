import { AgentError, AgentTimeoutError, ConfigError, observeRun, runEventStream, stream, invoke$ } from '@rxagents/core';
import { createGateway, RetryError } from 'ai';
import { config, from, lastValueFrom, merge, scan, tap, toArray } from 'rxjs';
import { aiSdkAgent, type AiSdkUsageReport } from '@rxagents/ai-sdk';
import { apiCallError, controlledModel, failingModel, settle, streamingModel, textParts } from './mockModels';

describe('aiSdkAgent', () => {
  it('streams the model text deltas as chunks, in order', async () => {
    const agent = aiSdkAgent({ id: 'writer', model: streamingModel(textParts(['Once ', 'upon ', 'a ', 'time'])) });

    const chunks = await lastValueFrom(stream(agent, 'Tell a story').pipe(toArray()));

    expect(chunks).toEqual(['Once ', 'upon ', 'a ', 'time']);
  });

  it('keeps id, name, role and goal, and is frozen', () => {
    const agent = aiSdkAgent({ id: 'billing', name: 'Billing', role: 'Billing specialist', goal: 'Settle invoices', model: streamingModel([]) });

    expect([agent.id, agent.name, agent.role, agent.goal]).toEqual(['billing', 'Billing', 'Billing specialist', 'Settle invoices']);
    expect(Object.isFrozen(agent)).toBe(true);
  });

  it('sends the system prompt, the context as prior messages and the input last', async () => {
    const model = streamingModel(textParts(['ok']));
    const agent = aiSdkAgent({ id: 'support', model, system: 'You are support.' });

    await lastValueFrom(
      invoke$(agent, 'And my invoice?', {
        context: [
          { role: 'user', content: 'Hello' },
          { role: 'assistant', content: 'Hi, how can I help?' },
        ],
      }),
    );

    expect(model.doStreamCalls[0]?.prompt).toEqual([
      { role: 'system', content: 'You are support.' },
      { role: 'user', content: [{ type: 'text', text: 'Hello' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'Hi, how can I help?' }] },
      { role: 'user', content: [{ type: 'text', text: 'And my invoice?' }] },
    ]);
  });

  it('fails with an AgentError caused by a ConfigError naming a context message of an unknown role, without calling the model', async () => {
    const model = streamingModel(textParts(['ok']));
    const agent = aiSdkAgent({ id: 'support', model });

    const error = await lastValueFrom(invoke$(agent, 'hi', { context: [{ role: 'developer', content: 'Be brief.' } as never] })).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(AgentError);
    expect((error as AgentError).cause).toBeInstanceOf(ConfigError);
    expect((error as AgentError).message).toContain('messages.0.role must be system, user, assistant or tool, got "developer"');
    expect(model.doStreamCalls).toHaveLength(0);
  });

  it('passes its settings to the model call', async () => {
    const model = streamingModel(textParts(['ok']));
    const agent = aiSdkAgent({ id: 'a', model, settings: { temperature: 0.3, maxOutputTokens: 64, seed: 7 } });

    await lastValueFrom(invoke$(agent, 'hi'));

    expect(model.doStreamCalls[0]).toMatchObject({ temperature: 0.3, maxOutputTokens: 64, seed: 7 });
  });

  it('stops the stream when the caller unsubscribes mid-stream, and the model sees the abort', async () => {
    const controlled = controlledModel();
    const agent = aiSdkAgent({ id: 'talker', model: controlled.model });
    const received: string[] = [];

    const subscription = stream(agent, 'Talk').subscribe((chunk) => received.push(chunk));
    const call = await controlled.called;
    controlled.push({ type: 'text-start', id: 't' });
    controlled.push({ type: 'text-delta', id: 't', delta: 'one ' });
    controlled.push({ type: 'text-delta', id: 't', delta: 'two ' });
    await settle();
    subscription.unsubscribe();
    controlled.push({ type: 'text-delta', id: 't', delta: 'three' });
    controlled.close();
    await settle();

    expect(received).toEqual(['one ', 'two ']);
    expect(call.abortSignal?.aborted).toBe(true);
  });

  it('errors with the signal reason when the chat signal aborts mid-stream, so a cut-off reply never looks whole', async () => {
    const controlled = controlledModel();
    const agent = aiSdkAgent({ id: 'talker', model: controlled.model });
    const controller = new AbortController();
    const received: string[] = [];
    const outcome = new Promise<unknown>((resolve) =>
      from(agent.chat('Talk', { signal: controller.signal })).subscribe({
        next: (chunk) => received.push(chunk),
        error: resolve,
        complete: () => resolve('completed'),
      }),
    );

    const call = await controlled.called;
    controlled.push({ type: 'text-start', id: 't' });
    controlled.push({ type: 'text-delta', id: 't', delta: 'half' });
    await settle();
    const reason = new Error('user pressed stop');
    controller.abort(reason);
    controlled.push({ type: 'text-delta', id: 't', delta: ' more' });
    controlled.close();

    await expect(outcome).resolves.toBe(reason);
    expect(received).toEqual(['half']);
    expect(call.abortSignal?.aborted).toBe(true);
  });

  it('errors with the reason as soon as the chat signal aborts, even when the model ignores the abort', async () => {
    const controlled = controlledModel();
    const agent = aiSdkAgent({ id: 'deaf', model: controlled.model });
    const controller = new AbortController();
    let outcome: unknown = 'pending';
    from(agent.chat('Talk', { signal: controller.signal })).subscribe({ error: (e: unknown) => (outcome = e), complete: () => (outcome = 'completed') });

    const call = await controlled.called;
    controlled.push({ type: 'text-start', id: 't' });
    await settle();
    const reason = new Error('user pressed stop');
    controller.abort(reason);
    await settle();

    expect(outcome).toBe(reason);
    expect(call.abortSignal?.aborted).toBe(true);
  });

  it('cancels the model stream after an error part, so a provider that keeps streaming is not left running', async () => {
    const controlled = controlledModel();
    const agent = aiSdkAgent({ id: 'e', model: controlled.model });
    let outcome: unknown = 'pending';
    stream(agent, 'hi').subscribe({ error: (e: unknown) => (outcome = e), complete: () => (outcome = 'completed') });

    const call = await controlled.called;
    controlled.push({ type: 'text-start', id: 't' });
    controlled.push({ type: 'text-delta', id: 't', delta: 'a' });
    controlled.push({ type: 'error', error: new Error('bad chunk') });
    await settle();

    expect(outcome).toBeInstanceOf(AgentError);
    expect(call.abortSignal?.aborted).toBe(true);
  });

  it('fails at once with the reason when the signal is already aborted', async () => {
    const model = streamingModel(textParts(['never']));
    const agent = aiSdkAgent({ id: 'a', model });
    const controller = new AbortController();
    controller.abort(new Error('gone'));

    const outcome = await lastValueFrom(from(agent.chat('hi', { signal: controller.signal }))).catch((error: unknown) => error);

    expect(outcome).toEqual(new Error('gone'));
    expect(model.doStreamCalls).toHaveLength(0);
  });

  it('lets invoke time the reply out on its scheduler and aborts the model call', async () => {
    const controlled = controlledModel();
    const agent = aiSdkAgent({ id: 'slow', model: controlled.model });

    const outcome = lastValueFrom(invoke$(agent, 'hi', { timeout: 5 })).catch((error: unknown) => error);
    const call = await controlled.called;

    await expect(outcome).resolves.toBeInstanceOf(AgentTimeoutError);
    expect(call.abortSignal?.aborted).toBe(true);
  });

  it.each([
    [429, true],
    [500, true],
    [503, true],
    [400, false],
    [401, false],
    [404, false],
  ])('maps a provider HTTP %i to an AgentError with that status, retryable %s', async (status, retryable) => {
    const agent = aiSdkAgent({ id: 'billing', model: failingModel(status), settings: { maxRetries: 0 } });

    const error = await lastValueFrom(invoke$(agent, 'hi')).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(AgentError);
    expect(error).toMatchObject({ agentId: 'billing', status, retryable, code: 'AGENT_ERROR' });
    expect((error as AgentError).message).toContain(`HTTP ${status}`);
  });

  it('maps an error streamed mid-reply, after the chunks already delivered', async () => {
    const agent = aiSdkAgent({
      id: 'billing',
      model: streamingModel([
        { type: 'text-start', id: 't' },
        { type: 'text-delta', id: 't', delta: 'Partial' },
        { type: 'error', error: apiCallError(502, 'Bad Gateway') },
      ]),
    });
    const chunks: string[] = [];

    const error = await new Promise<unknown>((resolve) =>
      stream(agent, 'hi').subscribe({ next: (chunk) => chunks.push(chunk), error: resolve, complete: () => resolve('completed') }),
    );

    expect(chunks).toEqual(['Partial']);
    expect(error).toBeInstanceOf(AgentError);
    expect(error).toMatchObject({ status: 502, retryable: true });
  });

  it.each([
    [429, 'rate_limit_exceeded', true],
    [500, 'internal_server_error', true],
    [401, 'authentication_error', false],
  ])('maps an AI Gateway HTTP %i (%s, for a model given by id) to an AgentError with that status, retryable %s', async (status, type, retryable) => {
    const gateway = createGateway({
      apiKey: 'test-key',
      fetch: async () => new Response(JSON.stringify({ error: { message: `gateway answered ${status}`, type } }), { status, headers: { 'content-type': 'application/json' } }),
    });
    const agent = aiSdkAgent({ id: 'billing', model: gateway('openai/gpt-4o-mini'), settings: { maxRetries: 0 } });

    const error = await lastValueFrom(invoke$(agent, 'hi')).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(AgentError);
    expect(error).toMatchObject({ agentId: 'billing', status, retryable });
  });

  it("treats the AI Gateway's client-side timeout as retryable, like the SDK's own timeout", async () => {
    const gateway = createGateway({
      apiKey: 'test-key',
      fetch: async () => {
        throw Object.assign(new Error('Headers Timeout Error'), { code: 'UND_ERR_HEADERS_TIMEOUT' });
      },
    });
    const agent = aiSdkAgent({ id: 'billing', model: gateway('openai/gpt-4o-mini'), settings: { maxRetries: 0 } });

    const error = await lastValueFrom(invoke$(agent, 'hi')).catch((e: unknown) => e);

    expect(error).toMatchObject({ agentId: 'billing', retryable: true, cause: expect.objectContaining({ name: 'GatewayTimeoutError' }) });
  });

  it('judges a RetryError by its last attempt', async () => {
    const last = apiCallError(429, 'Too Many Requests');
    const retryError = new RetryError({ message: 'Failed after 3 attempts', reason: 'maxRetriesExceeded', errors: [last, last, last] });
    const agent = aiSdkAgent({
      id: 'a',
      model: streamingModel([{ type: 'error', error: retryError }]),
    });

    const error = await lastValueFrom(invoke$(agent, 'hi')).catch((e: unknown) => e);

    expect(error).toMatchObject({ status: 429, retryable: true, cause: retryError });
  });

  it('treats a request that got no answer as the SDK says, and a non-HTTP error as not retryable', async () => {
    const unreachable = aiSdkAgent({ id: 'a', model: failingModel(undefined, 'Cannot connect to API'), settings: { maxRetries: 0 } });
    const broken = aiSdkAgent({ id: 'b', model: streamingModel([{ type: 'error', error: new TypeError('bad chunk') }]) });

    const [first, second] = await Promise.all([
      lastValueFrom(invoke$(unreachable, 'hi')).catch((e: unknown) => e),
      lastValueFrom(invoke$(broken, 'hi')).catch((e: unknown) => e),
    ]);

    expect(first).toMatchObject({ status: undefined, retryable: true });
    expect(second).toBeInstanceOf(AgentError);
    expect(second).toMatchObject({ status: undefined, retryable: false });
  });

  describe('usage', () => {
    it('reports tokens in and out on usage$ and lastUsage before the reply completes', async () => {
      const agent = aiSdkAgent({ id: 'billing', model: streamingModel(textParts(['Paid.'], { input: 42, output: 7 })) });
      const reports: AiSdkUsageReport[] = [];
      agent.usage$.subscribe((report) => reports.push(report));
      let usageAtCompletion: AiSdkUsageReport | undefined;

      await new Promise<void>((resolve, reject) =>
        stream(agent, 'Is it paid?', { metadata: { taskId: 't-1' } }).subscribe({
          error: reject,
          complete: () => {
            usageAtCompletion = agent.lastUsage;
            resolve();
          },
        }),
      );

      expect(reports).toHaveLength(1);
      expect(reports[0]).toMatchObject({
        agentId: 'billing',
        input: 'Is it paid?',
        metadata: { taskId: 't-1' },
        inputTokens: 42,
        outputTokens: 7,
        totalTokens: 49,
        finishReason: 'stop',
      });
      expect(usageAtCompletion).toBe(reports[0]);
    });

    it('calls onUsage with each report', async () => {
      const seen: number[] = [];
      const agent = aiSdkAgent({ id: 'a', model: streamingModel(textParts(['ok'], { input: 3, output: 1 })), onUsage: (report) => seen.push(report.inputTokens ?? -1) });

      await expect(lastValueFrom(invoke$(agent, 'hi'))).resolves.toBe('ok');

      expect(seen).toEqual([3]);
    });

    it("reports the model's tokens as a usage event under its call, and streams its text deltas, in a run", async () => {
      const agent = aiSdkAgent({ id: 'billing', model: streamingModel(textParts(['Paid ', 'in full'], { input: 3, output: 2 })) });
      const events = await lastValueFrom(observeRun('support', 'hi', (run) => invoke$(agent, 'hi', { run })).pipe(toArray()));
      const call = events.find((event) => event.type === 'call-start');
      const usage = events.find((event) => event.type === 'usage');
      expect(usage).toMatchObject({ callId: call?.callId, agentId: 'billing', inputTokens: 3, outputTokens: 2 });
      expect(events.flatMap((event) => (event.type === 'text-delta' ? [event.delta] : []))).toEqual(['Paid ', 'in full']);
    });

    it('holds a paced run at the buffer while its reader stalls, then delivers every delta', async () => {
      const deltas = 5_000;
      const model = streamingModel(textParts(Array.from({ length: deltas }, () => 'x')));
      const agent = aiSdkAgent({ id: 'writer', model });
      let emitted = 0;
      const events = runEventStream(
        (pace) => observeRun('ui', 'go', (run) => stream(agent, 'go', { run }), { pace }).pipe(tap((event) => (event.type === 'text-delta' ? emitted++ : undefined))),
        { bufferSize: 16 },
      );
      const reader = events.getReader();
      await reader.read();
      // Every chance to run ahead: 200 turns of the event loop with nobody reading.
      for (let i = 0; i < 200; i++) await new Promise((resolve) => setImmediate(resolve));
      const emittedWhileStalled = emitted;

      let text = '';
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        if (value.type === 'text-delta') text += value.delta;
      }
      expect(emittedWhileStalled).toBeLessThanOrEqual(16);
      expect(text).toBe('x'.repeat(deltas));
    });

    it('lets only as many paced replies go on as there is room for when several wait on a full buffer', async () => {
      const agents = Array.from({ length: 6 }, (_, i) => aiSdkAgent({ id: `writer-${i}`, model: streamingModel(textParts(Array.from({ length: 50 }, () => 'x'))) }));
      let emitted = 0;
      const events = runEventStream(
        (pace) =>
          observeRun('ui', 'go', (run) => merge(...agents.map((agent) => stream(agent, 'go', { run }))), { pace }).pipe(tap(() => emitted++)),
        { bufferSize: 8 },
      );
      const reader = events.getReader();
      for (let i = 0; i < 200; i++) await new Promise((resolve) => setImmediate(resolve));
      // The buffer is full of starts and deltas; reading one event makes room for one more.
      expect(emitted).toBe(8);
      await reader.read();
      for (let i = 0; i < 200; i++) await new Promise((resolve) => setImmediate(resolve));
      expect(emitted).toBe(9);
      await reader.cancel();
    });

    it('fails the reply with an AgentError when onUsage throws, and reports nothing as unhandled', async () => {
      const unhandled: unknown[] = [];
      const previous = config.onUnhandledError;
      config.onUnhandledError = (error) => unhandled.push(error);
      try {
        const broken = new Error('listener broke');
        const agent = aiSdkAgent({
          id: 'a',
          model: streamingModel(textParts(['ok'], { input: 3, output: 1 })),
          onUsage: () => {
            throw broken;
          },
        });

        const error = await lastValueFrom(invoke$(agent, 'hi')).catch((e: unknown) => e);
        await settle();

        expect(error).toBeInstanceOf(AgentError);
        expect(error).toMatchObject({ agentId: 'a', retryable: false, cause: broken });
        expect(agent.lastUsage?.inputTokens).toBe(3);
        expect(unhandled).toEqual([]);
      } finally {
        config.onUnhandledError = previous;
      }
    });

    it('reports nothing for a failed or aborted call', async () => {
      const agent = aiSdkAgent({ id: 'a', model: failingModel(500), settings: { maxRetries: 0 } });
      const reports: AiSdkUsageReport[] = [];
      agent.usage$.subscribe((report) => reports.push(report));

      await lastValueFrom(invoke$(agent, 'hi')).catch(() => undefined);

      expect(reports).toEqual([]);
      expect(agent.lastUsage).toBeUndefined();
    });

    it('sums usage with scan for a running cost display', async () => {
      const agent = aiSdkAgent({ id: 'a', model: streamingModel(textParts(['ok'], { input: 5, output: 2 })) });
      const totals: number[] = [];
      agent.usage$.pipe(scan((sum, report) => sum + (report.totalTokens ?? 0), 0)).subscribe((total) => totals.push(total));

      await lastValueFrom(invoke$(agent, 'one'));
      await lastValueFrom(invoke$(agent, 'two'));

      expect(totals).toEqual([7, 14]);
      expect(agent.lastUsage?.input).toBe('two');
    });
  });

  describe('configuration', () => {
    it('rejects a missing model, an empty id and unknown options with a ConfigError', () => {
      expect(() => aiSdkAgent({ id: 'a' } as never)).toThrow(ConfigError);
      expect(() => aiSdkAgent({ id: 'a' } as never)).toThrow(/aiSdkAgent options: model must be an AI SDK language model/);
      expect(() => aiSdkAgent({ id: '', model: streamingModel([]) })).toThrow(/id must be a non-blank string, got ""/);
      expect(() => aiSdkAgent({ id: 'a', model: streamingModel([]), temprature: 1 } as never)).toThrow(/temprature is not a known option/);
      expect(() => aiSdkAgent({ id: 'a', model: streamingModel([]), settings: 3 as never })).toThrow(/settings must be an object of AI SDK call settings/);
    });
  });

  it.each([undefined, null, 42, {}])('%p as chat options, or a non-string input, is a ConfigError naming the argument (the Agent contract; stream and invoke always pass both)', (bad) => {
    const agent = aiSdkAgent({ id: 'writer', model: streamingModel(textParts(['hi'])) });
    expect(() => agent.chat('hi', bad as never)).toThrow(ConfigError);
    expect(() => agent.chat('hi', bad as never)).toThrow(/^writer.chat: options must be ChatOptions/);
    expect(() => agent.chat(bad as never, { signal: new AbortController().signal })).toThrow(/^writer.chat: input must be a string/);
  });
});
