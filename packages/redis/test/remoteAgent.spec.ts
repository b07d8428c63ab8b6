import { AgentError, AgentTimeoutError, ConfigError, defineAgent, emitCustom, invoke, invoke$, type Message, observeRun, type RunEvent, runEventStream, stream } from '@rxagents/core';
import { Patterns } from '@rxagents/patterns';
import { finalize, firstValueFrom, from, Observable, tap, toArray } from 'rxjs';
import { RemoteAgentError, remoteAgent, RemoteCallAttemptsError, serveAgent } from '../src';
import { describeRedis } from './support/describeRedis';
import { waitUntil } from './support/waitUntil';
import { servedPerTest } from './support/servedPerTest';
import { waitingAgent } from './support/waitingAgent';

jest.setTimeout(30_000);

describeRedis(
  'remoteAgent and serveAgent',
  (server) => {
    const served = servedPerTest('t');
    const serve = served.serve;

    it('streams the chunks of a remote agent and completes with its reply', async () => {
      const writer = defineAgent('writer', () => new Observable<string>((s) => (['Once ', 'upon ', 'a time'].forEach((c) => s.next(c)), s.complete())));
      serve(server().client(), writer);
      const remote = remoteAgent(server().client(), 'writer', { prefix: served.prefix });
      const chunks = await firstValueFrom(stream(remote, 'go').pipe(toArray()));
      expect(chunks).toEqual(['Once ', 'upon ', 'a time']);
      expect(await invoke(remote, 'again')).toBe('Once upon a time');
    });

    it('streams a burst of chunks written at once (several batched entries) whole and in order, in both delivery modes', async () => {
      const words = Array.from({ length: 1_000 }, (_, i) => `w${i} `);
      serve(server().client(), defineAgent('burst', () => from(words)));
      const chunks = await firstValueFrom(stream(remoteAgent(server().client(), 'burst', { prefix: served.prefix, delivery: 'live' }), 'go').pipe(toArray()));
      expect(chunks).toEqual(words);
      expect(await invoke(remoteAgent(server().client(), 'burst', { prefix: served.prefix }), 'go')).toBe(words.join(''));
    });

    it('leaves no key of ended calls and no answered entry behind once the worker drained and the caller is idle', async () => {
      const redis = server().client();
      const worker = serve(server().client(), defineAgent('quick', async (input) => `re ${input}`));
      const remote = remoteAgent(server().client(), 'quick', { prefix: served.prefix });
      const replies: string[] = [];
      for (let i = 0; i < 40; i += 1) replies.push(await invoke(remote, String(i)));
      expect(replies.at(-1)).toBe('re 39');
      await worker.drain();
      expect(await redis.xlen(`${served.prefix}:agent:{quick}:calls`)).toBe(0);
      expect((await redis.xpending(`${served.prefix}:agent:{quick}:calls`, 'workers'))[0]).toBe(0);
      await waitUntil('the caller deleted the keys of its ended calls', async () => (await redis.scan('0', 'MATCH', `${served.prefix}:call:*`, 'COUNT', 10_000))[1].length === 0);
    });

    it.each([undefined, null, 42, {}])('%p as chat options, or a non-string input, is a ConfigError naming the argument before anything is sent', (bad) => {
      const remote = remoteAgent(server().client(), 'writer', { prefix: served.prefix });
      expect(() => remote.chat('hi', bad as never)).toThrow(ConfigError);
      expect(() => remote.chat('hi', bad as never)).toThrow(/^writer.chat: options must be ChatOptions/);
      expect(() => remote.chat(bad as never, { signal: new AbortController().signal })).toThrow(/^writer.chat: input must be a string/);
    });

    it('passes input, context and metadata to the remote agent', async () => {
      const echo = defineAgent('echo', async (input, { context = [], metadata = {} }) => `${input}|${context.map((m) => m.content).join(',')}|${String(metadata['task'])}`);
      serve(server().client(), echo);
      const remote = remoteAgent(server().client(), 'echo', { prefix: served.prefix });
      const reply = await invoke(remote, 'hi', { context: [{ role: 'user', content: 'earlier' }], metadata: { task: 't-7' } });
      expect(reply).toBe('hi|earlier|t-7');
    });

    it('passes context messages that carry fields of their own (a handoff lets them through), and refuses a non-message at once', async () => {
      const echo = defineAgent('echo', async (input, { context = [] }) => `${input}|${context.map((m) => `${m.role}:${m.content}:${Object.keys(m).length}`).join(',')}`);
      serve(server().client(), echo);
      const remote = remoteAgent(server().client(), 'echo', { prefix: served.prefix });
      const stamped = { role: 'user', content: 'earlier', id: 'm-1', createdAt: 1_700_000_000_000 } as Message;
      expect(await invoke(remote, 'hi', { context: [stamped], timeout: 10_000 })).toBe('hi|user:earlier:2');
      const failure = await invoke(remote, 'hi', { context: [{ role: 'developer', content: 'x' } as unknown as Message], timeout: 10_000 }).catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(AgentError);
      expect((failure as AgentError).cause).toBeInstanceOf(ConfigError);
      expect(String((failure as AgentError).cause)).toMatch(/context\.0\.role/);
    });

    it("shows the remote agent's run events inside the caller's run, under the remote call", async () => {
      const helper = defineAgent('helper', async (input) => `helped ${input}`);
      const lead = defineAgent('lead', async (input, { run }) => {
        emitCustom(run, 'progress', { step: 1 });
        return invoke(helper, input, run === undefined ? {} : { run });
      });
      serve(server().client(), lead);
      const remote = remoteAgent(server().client(), 'lead', { prefix: served.prefix });
      const events = await firstValueFrom(observeRun('remote', 'x', (run) => invoke$(remote, 'x', { run })).pipe(toArray()));
      const remoteCall = events.find((e): e is Extract<RunEvent, { type: 'call-start' }> => e.type === 'call-start' && e.agentId === 'lead');
      const helperCall = events.find((e) => e.type === 'call-start' && e.agentId === 'helper');
      const progress = events.find((e) => e.type === 'custom' && e.name === 'progress');
      expect(remoteCall).toBeDefined();
      expect(helperCall?.parentCallId).toBe(remoteCall?.callId);
      expect(progress?.callId).toBe(remoteCall?.callId);
      expect(events.filter((e) => e.type === 'text-delta' && e.agentId === 'lead').map((e) => (e.type === 'text-delta' ? e.delta : ''))).toEqual(['helped x']);
      expect(events.at(-1)).toMatchObject({ type: 'run-end', success: true, output: 'helped x' });
    });

    it("fails with the remote agent's error, its retryable flag kept", async () => {
      const flaky = defineAgent('flaky', async () => {
        throw new AgentError('flaky', new Error('rate limited'), { retryable: true });
      });
      serve(server().client(), flaky);
      const remote = remoteAgent(server().client(), 'flaky', { prefix: served.prefix });
      const failure = await invoke(remote, 'x').catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(AgentError);
      const cause = (failure as AgentError).cause;
      expect(cause).toBeInstanceOf(RemoteAgentError);
      expect((cause as RemoteAgentError).remote.message).toBe('rate limited');
      expect((failure as AgentError).retryable).toBe(true);
    });

    it('holds a paced run at its buffer while the reader stalls: the rest of the reply waits in Redis, then arrives whole', async () => {
      const words = Array.from({ length: 3_000 }, (_, i) => `w${i} `);
      let written = false;
      serve(server().client(), defineAgent('burst', () => from(words).pipe(finalize(() => (written = true)))));
      const remote = remoteAgent(server().client(), 'burst', { prefix: served.prefix, delivery: 'live' });
      let emitted = 0;
      const events = runEventStream(
        (pace) => observeRun('ui', 'go', (run) => stream(remote, 'go', { run }), { pace }).pipe(tap((event) => (event.type === 'text-delta' ? emitted++ : undefined))),
        { bufferSize: 16 },
      );
      const reader = events.getReader();
      await reader.read();
      await waitUntil('the worker wrote the whole reply', () => written);
      // Time for the caller to read what the worker wrote, as it would without a paced reader.
      await new Promise((resolve) => setTimeout(resolve, 500));
      const emittedWhileStalled = emitted;

      let text = '';
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        if (value.type === 'text-delta') text += value.delta;
      }
      expect(emittedWhileStalled).toBeLessThanOrEqual(16);
      expect(text).toBe(words.join(''));
    });

    it("aborts the agent's signal on the worker when the caller unsubscribes", async () => {
      const slow = waitingAgent('slow');
      serve(server().client(), slow.agent);
      const remote = remoteAgent(server().client(), 'slow', { prefix: served.prefix });
      const subscription = stream(remote, 'x').subscribe({ error: () => undefined });
      await waitUntil('the worker runs the call', () => slow.started === 1);
      subscription.unsubscribe();
      await waitUntil('the worker aborts the call', () => slow.aborted === 1);
    });

    it('times out on the caller as a local agent does, and the worker stops the call', async () => {
      const slow = waitingAgent('slow');
      serve(server().client(), slow.agent);
      const remote = remoteAgent(server().client(), 'slow', { prefix: served.prefix });
      const failure = await invoke(remote, 'x', { timeout: 300 }).catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(AgentTimeoutError);
      await waitUntil('the worker aborts the call', () => slow.aborted === 1);
      expect(slow.aborted).toBe(1);
    });

    it('sends a malformed entry to the dead-letter stream with the reason and goes on serving', async () => {
      const redis = server().client();
      const echo = defineAgent('echo', async (input) => `echo ${input}`);
      serve(server().client(), echo);
      await redis.xadd(`${served.prefix}:agent:{echo}:calls`, '*', 'call', '{not json');
      await redis.xadd(`${served.prefix}:agent:{echo}:calls`, '*', 'call', JSON.stringify({ v: 1, callId: 'not-a-uuid', agentId: 'echo', input: 'x', maxAttempts: 1 }));
      const remote = remoteAgent(server().client(), 'echo', { prefix: served.prefix });
      expect(await invoke(remote, 'still here')).toBe('echo still here');
      await waitUntil('both entries are dead-lettered', async () => (await redis.xlen(`${served.prefix}:agent:{echo}:dead`)) === 2);
      const dead = (await redis.xrange(`${served.prefix}:agent:{echo}:dead`, '-', '+')).map(([, fields]) => fields[fields.indexOf('reason') + 1]);
      expect(dead[0]).toMatch(/is not JSON/);
      expect(dead[1]).toMatch(/fails the schema.*callId/s);
    });

    it('answers a call it cannot read but whose call id it can (another protocol version) with an error, so the caller does not wait for its timeout', async () => {
      const redis = server().client();
      const calls = `${served.prefix}:agent:{echo}:calls`;
      const remote = remoteAgent(server().client(), 'echo', { prefix: served.prefix });
      const failure = invoke(remote, 'hello').catch((error: unknown) => error);
      // The caller's entry, rewritten as a caller of a newer protocol version would have written it.
      await waitUntil('the call is in the stream', async () => (await redis.xlen(calls)) === 1);
      const [[entryId, fields]] = (await redis.xrange(calls, '-', '+')) as [[string, string[]]];
      const call = JSON.parse(fields[fields.indexOf('call') + 1] as string) as Record<string, unknown>;
      await redis.xdel(calls, entryId);
      await redis.xadd(calls, '*', 'call', JSON.stringify({ ...call, v: 2 }));
      serve(server().client(), defineAgent('echo', async (input) => `echo ${input}`));

      const error = await failure;
      expect(error).toBeInstanceOf(AgentError);
      const cause = (error as AgentError).cause as RemoteAgentError;
      expect(cause).toBeInstanceOf(RemoteAgentError);
      expect(cause.remote).toMatchObject({ code: 'REMOTE_CALL_REFUSED', retryable: false });
      expect(cause.remote.message).toMatch(/the worker of agent "echo" refused the call: .*fails the schema.*v/s);
      await waitUntil('the entry is dead-lettered', async () => (await redis.xlen(`${served.prefix}:agent:{echo}:dead`)) === 1);
    });

    it('restarts a call whose worker stopped mid-call on another worker, and the reply holds only the new attempt', async () => {
      let firstWorkerChunks = 0;
      const first = defineAgent('teller', () => new Observable<string>((s) => { s.next("first attempt "); firstWorkerChunks++; }));
      const firstWorker = serve(server().client(), first);
      const remote = remoteAgent(server().client(), 'teller', { prefix: served.prefix });
      const events: RunEvent[] = [];
      const reply = firstValueFrom(observeRun('restart', 'x', (run) => invoke$(remote, 'x', { run })).pipe(toArray())).then((all) => (events.push(...all), all));
      await waitUntil('the first worker streams', () => firstWorkerChunks === 1);
      await firstWorker.close(); // leaves the entry pending, as a crash does
      serve(server().client(), defineAgent('teller', async () => 'second attempt'));
      await reply;
      expect(events.at(-1)).toMatchObject({ type: 'run-end', success: true, output: 'second attempt' });
      expect(events.find((e) => e.type === 'custom' && e.name === 'call-restarted')).toMatchObject({ data: { agentId: 'teller', attempt: 2 } });
    });

    it('fails with a retryable RemoteCallAttemptsError once maxAttempts attempts were started', async () => {
      let started = 0;
      const stuck = defineAgent('stuck', () => new Observable<string>(() => void started++));
      const firstWorker = serve(server().client(), stuck);
      const remote = remoteAgent(server().client(), 'stuck', { prefix: served.prefix, maxAttempts: 1 });
      const failure = invoke(remote, 'x').catch((error: unknown) => error);
      await waitUntil('the first worker runs the call', () => started === 1);
      await firstWorker.close();
      serve(server().client(), stuck);
      const error = (await failure) as AgentError;
      expect(error.cause).toBeInstanceOf(RemoteCallAttemptsError);
      expect(error.retryable).toBe(true);
      expect(started).toBe(1);
    });

    it('runs a debate whose debaters are remote agents, unchanged', async () => {
      serve(server().client(), defineAgent('pro', async (input) => `pro on ${input.length > 0 ? 'it' : 'nothing'}`));
      serve(server().client(), defineAgent('con', async () => 'con'));
      const debaters = ['pro', 'con'].map((id) => remoteAgent(server().client(), id, { prefix: served.prefix }));
      const result = await Patterns.debate({ agents: debaters, maxRounds: 2 }).execute('Monorepo?');
      expect(result.status).toBe('completed');
      expect(result.results.map((r) => (r.success ? `${r.agentId}=${r.output}` : r.agentId))).toEqual(['pro=pro on it', 'con=con', 'pro=pro on it', 'con=con']);
    });

    it('rejects bad options with a ConfigError naming the field', () => {
      const redis = server().client();
      expect(() => remoteAgent(redis, 'x', { maxAttempts: 0 })).toThrow(ConfigError);
      expect(() => remoteAgent(redis, 'x', { maxAttempts: 0 })).toThrow(/maxAttempts/);
      // A lease this short runs out between the caller's renewals: workers took its calls for cancelled ones.
      expect(() => remoteAgent(redis, 'x', { leaseMs: 1 })).toThrow(/leaseMs must be at least 30/);
      expect(remoteAgent(redis, 'x', { leaseMs: 30 }).id).toBe('x');
      expect(() => serveAgent(redis, defineAgent('x', async () => ''), { claimIdleMs: 100, leaseCheckMs: 100 })).toThrow(/leaseCheckMs/);
      expect(() => serveAgent(redis, defineAgent('x', async () => ''), { concurrency: -1 })).toThrow(/concurrency/);
    });
  },
  true,
);
