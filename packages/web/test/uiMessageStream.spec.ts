import { concat, from, ignoreElements, lastValueFrom, Observable, of } from 'rxjs';
import {
  AbstractChat,
  createUIMessageStream,
  createUIMessageStreamResponse,
  DefaultChatTransport,
  readUIMessageStream,
  type ChatState,
  type ChatStatus,
  type UIMessage,
  type UIMessageChunk,
} from 'ai';
import { ConfigError, defineAgent, invoke$, MemoryRunStore, observeRun, type RunContext, type RunEvent } from '@rxagents/core';
import { handoff, handoffFilters, routingAgent } from '@rxagents/handoff';
import { Patterns } from '@rxagents/patterns';
import {
  runTextPartMetadata,
  toUIMessageStream,
  toUIMessageStreamResponse,
  type RunMessageMetadata,
  type RunUIDataTypes,
  type RunUIMessageChunk,
  type UIMessageStreamSource,
} from '@rxagents/web';

type RunUIMessage = UIMessage<RunMessageMetadata, RunUIDataTypes>;

// Our chunks are the ai package's chunks (checked by the compiler).
const asAiChunk = (chunk: RunUIMessageChunk): UIMessageChunk => chunk;

async function collect<T>(stream: ReadableStream<T>): Promise<T[]> {
  const values: T[] = [];
  for await (const value of stream) values.push(value);
  return values;
}

/** The message the ai package builds from our chunks, and the errors it reported. */
async function message(source: UIMessageStreamSource): Promise<{ message: RunUIMessage; errors: string[] }> {
  const errors: string[] = [];
  const messages = await collect(
    readUIMessageStream<RunUIMessage>({
      stream: toUIMessageStream(source).pipeThrough(new TransformStream<RunUIMessageChunk, UIMessageChunk>({ transform: (chunk, c) => c.enqueue(asAiChunk(chunk)) })),
      onError: (error) => errors.push(error instanceof Error ? error.message : String(error)),
    }),
  );
  return { message: messages.at(-1) as RunUIMessage, errors };
}

const textParts = (message: RunUIMessage) =>
  message.parts.flatMap((part) => {
    const metadata = runTextPartMetadata(part);
    return part.type === 'text' && metadata !== undefined ? [{ agentId: metadata.agentId, status: metadata.status, text: part.text, state: part.state, ...(metadata.relay ? { relay: true } : {}) }] : [];
  });

describe('toUIMessageStream', () => {
  it('makes a handoff run one assistant message: a text part per call and a data-handoff part', async () => {
    const billing = defineAgent('billing', () => from(['Your invoice ', 'is paid.']));
    const assistant = routingAgent({ id: 'assistant', handoffs: [handoff({ agent: billing, condition: handoffFilters.topic(['invoice']) })] });
    const { message: built, errors } = await message((pace) => assistant.events$('Where is my invoice?', { pace }));

    expect(errors).toEqual([]);
    expect(built.role).toBe('assistant');
    expect(built.metadata).toMatchObject({ name: 'routing', success: true, runId: built.id });
    // The routing agent's call relays the specialist's reply: the answer shows once, in the specialist's
    // part; the router's part is empty and marked as a relay.
    expect(textParts(built)).toEqual([
      { agentId: 'assistant', status: 'done', text: '', state: 'done', relay: true },
      { agentId: 'billing', status: 'done', text: 'Your invoice is paid.', state: 'done' },
    ]);
    expect(built.parts.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('')).toBe('Your invoice is paid.');
    const handoffs = built.parts.filter((part) => part.type === 'data-handoff');
    expect(handoffs).toEqual([{ type: 'data-handoff', data: expect.objectContaining({ type: 'handoff', to: 'billing' }) }]);
    const runParts = built.parts.flatMap((part) => (part.type === 'data-run' ? [(part.data as RunEvent).type] : []));
    expect(runParts[0]).toBe('run-start');
    expect(runParts.at(-1)).toBe('run-end');
  });

  it('shows a relay of a relay once, and keeps a relaying call\'s text when it is not exactly the nested reply', async () => {
    const billing = defineAgent('billing', () => from(['Your invoice ', 'is paid.']));
    const inner = routingAgent({ id: 'desk', handoffs: [handoff({ agent: billing, condition: handoffFilters.topic(['invoice']) })] });
    const outer = routingAgent({ id: 'front', handoffs: [handoff({ agent: inner, condition: handoffFilters.topic(['invoice']) })] });
    const twice = await message((pace) => outer.events$('Where is my invoice?', { pace }));
    expect(textParts(twice.message).map(({ agentId, text, relay }) => [agentId, text, relay === true])).toEqual([
      ['front', '', true],
      ['desk', '', true],
      ['billing', 'Your invoice is paid.', false],
    ]);

    // A caller that adds to the nested reply (or says only its start) is not a relay: its text is kept whole.
    const adds = defineAgent('adds', (input, { run }) => concat(invoke$(billing, input, { run }), of(' Anything else?')));
    const wrapped = await message((pace) => observeRun('ask', 'go', (run) => invoke$(adds, 'go', { run }), { pace }));
    expect(textParts(wrapped.message).map(({ agentId, text }) => `${agentId}: ${text}`)).toEqual(['adds: Your invoice is paid. Anything else?', 'billing: Your invoice is paid.']);
    const part = (text: string) => defineAgent('part', (input, { run }) => concat(invoke$(billing, input, { run }).pipe(ignoreElements()), of(text)));
    const prefix = await message((pace) => observeRun('ask', 'go', (run) => invoke$(part('Your invoice'), 'go', { run }), { pace }));
    expect(textParts(prefix.message).map(({ agentId, text }) => `${agentId}: ${text}`)).toEqual(['part: Your invoice', 'billing: Your invoice is paid.']);
  });

  it('makes a debate one text part per turn, in order, with the pattern messages as data-run parts', async () => {
    const optimist = defineAgent('optimist', async function* () {
      yield 'Ship ';
      yield 'it.';
    });
    const skeptic = defineAgent('skeptic', async () => 'Wait.');
    const debate = Patterns.debate({ agents: [optimist, skeptic], maxRounds: 2 });
    const { message: built, errors } = await message((pace) => debate.events$('Friday?', { pace }));

    expect(errors).toEqual([]);
    expect(textParts(built).map(({ agentId, text }) => `${agentId}: ${text}`)).toEqual(['optimist: Ship it.', 'skeptic: Wait.', 'optimist: Ship it.', 'skeptic: Wait.']);
    const said = built.parts.flatMap((part) => (part.type === 'data-run' && (part.data as RunEvent).type === 'message' ? [(part.data as { speaker: string }).speaker] : []));
    expect(said).toEqual(['optimist', 'skeptic', 'optimist', 'skeptic']);
    expect(built.metadata?.success).toBe(true);
  });

  it("shows the attempt a stopped process cut off as an interrupted text part, not a failed one, before the resumed attempt's", async () => {
    const runId = 'resumed-chat';
    const writer = defineAgent('writer', () => from(['Once ', 'upon ', 'a time.']));
    const body = (run: RunContext) => invoke$(writer, 'go', { run });
    const first = new MemoryRunStore();
    await lastValueFrom(observeRun('story', 'go', body, { store: first, runId }));
    const journal: RunEvent[] = [];
    for await (const record of first.read(runId)) journal.push(record.event);
    // The first process stopped once the writer's first words were journaled.
    const second = new MemoryRunStore();
    await second.append(runId, journal.slice(0, journal.findIndex((event) => event.type === 'text-delta') + 1));
    const { message: built, errors } = await message(observeRun('story', 'go', body, { store: second, runId }));

    expect(errors).toEqual([]);
    expect(textParts(built)).toEqual([
      { agentId: 'writer', status: 'interrupted', text: 'Once ', state: 'done' },
      { agentId: 'writer', status: 'done', text: 'Once upon a time.', state: 'done' },
    ]);
  });

  it('shows a failing call as a failed text part with its call-error, and a failed run as an error', async () => {
    const broken = defineAgent('broken', async function* () {
      yield 'Half ';
      throw new Error('model went away');
    });
    const { message: built, errors } = await message((pace) => observeRun('ask', 'go', (run) => invoke$(broken, 'go', { run }), { pace }));

    expect(textParts(built)).toEqual([{ agentId: 'broken', status: 'failed', text: 'Half ', state: 'done' }]);
    const failure = built.parts.find((part) => part.type === 'data-run' && (part.data as RunEvent).type === 'call-error');
    expect((failure as { data: { error: unknown } }).data.error).toEqual({ name: 'AgentError', message: 'An error occurred on the server', code: 'AGENT_ERROR', retryable: false });
    expect(errors).toEqual(['An error occurred on the server']);
    expect(built.metadata?.success).toBe(false);
  });

  it("sends an error's message only when exposeError says so", async () => {
    const broken = defineAgent('broken', async () => {
      throw new Error('model went away at 10.0.4.2');
    });
    const run = (pace: RunContext['pace']) => observeRun('ask', 'go', (context) => invoke$(broken, 'go', { run: context }), { pace });
    const redacted = await collect(toUIMessageStream(run));
    expect(JSON.stringify(redacted)).not.toContain('10.0.4.2');
    const { message: built, errors } = await message((pace) => run(pace));
    expect(JSON.stringify(built)).not.toContain('10.0.4.2');
    expect(errors).toEqual(['An error occurred on the server']);

    const detailed = await collect(toUIMessageStream(run, { exposeError: (error) => error }));
    expect(detailed.find((chunk) => chunk.type === 'error')).toEqual({ type: 'error', errorText: 'Agent "broken" failed: model went away at 10.0.4.2' });
    const detailedResponse = await toUIMessageStreamResponse(run, { exposeError: (error) => error }).text();
    expect(detailedResponse).toContain('10.0.4.2');
    expect(await toUIMessageStreamResponse(run).text()).not.toContain('10.0.4.2');
  });

  it('ends with an error chunk when the events themselves fail, its text generic unless exposeError says otherwise', async () => {
    const failing = () => new Observable<RunEvent>((subscriber) => subscriber.error(new Error('lost the run at /srv/app')));
    expect(await collect(toUIMessageStream(failing()))).toEqual([{ type: 'error', errorText: 'An error occurred on the server' }]);
    expect(await collect(toUIMessageStream(failing(), { exposeError: (error) => error }))).toEqual([{ type: 'error', errorText: 'lost the run at /srv/app' }]);
  });

  it('ends a run whose events stop before its nodes end as failed, not as a finished message', async () => {
    const base = { runId: 'r', at: 0 } as const;
    const cut = from<RunEvent[]>([
      { type: 'run-start', ...base, callId: 'root', parentCallId: null, name: 'story', input: 'go' },
      { type: 'call-start', ...base, callId: 'c1', parentCallId: 'root', agentId: 'writer', input: 'go' },
      { type: 'text-delta', ...base, callId: 'c1', parentCallId: 'root', agentId: 'writer', delta: 'Once' },
    ]);
    const chunks = await collect(toUIMessageStream(cut));
    expect(chunks.slice(-5).map((chunk) => (chunk.type === 'data-run' ? `data-run ${chunk.data.type}` : chunk.type))).toEqual(['text-end', 'data-run call-error', 'data-run run-end', 'error', 'finish']);
    expect(chunks.at(-1)).toMatchObject({ type: 'finish', finishReason: 'error' });
    const { message: built, errors } = await message(cut);
    expect(errors).toEqual(['The run ended before its nodes did']);
    expect(textParts(built)).toEqual([{ agentId: 'writer', status: 'failed', text: 'Once', state: 'done' }]);
  });

  it('lets the reader pace the run: unread, an agent that streams is not pulled ahead', async () => {
    let pulled = 0;
    const long = defineAgent('long', async function* () {
      for (let index = 0; index < 1_000; index++) {
        pulled++;
        yield 'x';
      }
    });
    const stream = toUIMessageStream((pace) => observeRun('long', 'go', (run) => invoke$(long, 'go', { run }), { pace }), { bufferSize: 4 });
    const reader = stream.getReader();
    await reader.read();
    for (let tick = 0; tick < 50; tick++) await new Promise((resolve) => setImmediate(resolve));
    expect(pulled).toBeLessThan(20);
    let text = 0;
    for (let next = await reader.read(); !next.done; next = await reader.read()) if (next.value.type === 'text-delta') text += next.value.delta.length;
    expect(text).toBe(1_000);
  });

  it('cancels the run when the reader cancels', async () => {
    let aborted = false;
    const waiting = defineAgent('waiting', (_input, { signal }) => new Promise<string>(() => signal.addEventListener('abort', () => (aborted = true))));
    const reader = toUIMessageStream((pace) => observeRun('wait', 'go', (run) => invoke$(waiting, 'go', { run }), { pace })).getReader();
    const seen: string[] = [];
    while (!seen.includes('text-start')) seen.push(((await reader.read()).value as RunUIMessageChunk).type);
    await reader.cancel();
    expect(aborted).toBe(true);
  });

  it('rejects unknown options with a ConfigError naming the field', () => {
    expect(() => toUIMessageStream(from([]), { delivery: 'fast' } as never)).toThrow(ConfigError);
    expect(() => toUIMessageStream(from([]), { bufersize: 3 } as never)).toThrow(/bufersize/);
  });

  it.each([null, undefined, 42, {}])('refuses %p as the source with a ConfigError naming source, before any stream exists', (bad) => {
    expect(() => toUIMessageStream(bad as never)).toThrow(ConfigError);
    expect(() => toUIMessageStream(bad as never)).toThrow(/^toUIMessageStream: source must be an Observable of run events or a function returning one/);
    expect(() => toUIMessageStreamResponse(bad as never)).toThrow(/^toUIMessageStreamResponse: source must be an Observable/);
  });
});

describe('toUIMessageStreamResponse', () => {
  const writer = defineAgent('writer', () => from(['Once ', 'upon ', 'a time.']));
  const story: UIMessageStreamSource = (pace) => observeRun('story', 'go', (run) => invoke$(writer, 'go', { run }), { pace });

  it('sends what the ai package sends for the same chunks: same bytes, same headers', async () => {
    const ours = toUIMessageStreamResponse(story, { messageId: 'm1' });
    const chunks = await collect(toUIMessageStream(story, { messageId: 'm1' }));
    const normalise = (text: string) => text.replace(/"at":\d+/g, '"at":0').replace(/"durationMs":\d+/g, '"durationMs":0').replace(/[0-9a-f]{8}-[0-9a-f-]{27}/g, 'id');
    const theirs = createUIMessageStreamResponse({ stream: new ReadableStream({ start: (c) => (chunks.forEach((chunk) => c.enqueue(asAiChunk(chunk))), c.close()) }) });

    expect(normalise(await ours.text())).toBe(normalise(await theirs.text()));
    expect([...ours.headers.entries()]).toEqual([...theirs.headers.entries()]);
  });

  it('is read by useChat\'s default transport into the assistant message', async () => {
    const transport = new DefaultChatTransport<RunUIMessage>({ api: 'https://example.com/api/chat', fetch: async () => toUIMessageStreamResponse(story) });
    const chunks = await transport.sendMessages({ trigger: 'submit-message', chatId: 'c', messageId: undefined, messages: [], abortSignal: undefined });
    const messages = await collect(readUIMessageStream<RunUIMessage>({ stream: chunks, terminateOnError: true }));
    expect(textParts(messages.at(-1) as RunUIMessage).map((part) => part.text)).toEqual(['Once upon a time.']);
  });

  it('refuses a bad header with a ConfigError naming it, before the run starts', () => {
    let started = 0;
    const run: UIMessageStreamSource = () => new Observable<RunEvent>(() => void started++);
    expect(() => toUIMessageStreamResponse(run, { headers: { 'bad name': 'x' } })).toThrow(ConfigError);
    expect(() => toUIMessageStreamResponse(run, { headers: { 'x-run': 'line\nbreak' } })).toThrow(/headers/);
    expect(started).toBe(0);
  });

  it('refuses a status whose response cannot have a body with a ConfigError, before the run starts', () => {
    let started = 0;
    const run: UIMessageStreamSource = () => new Observable<RunEvent>(() => void started++);
    for (const status of [204, 205, 304]) expect(() => toUIMessageStreamResponse(run, { status })).toThrow(/status must be a status that may have a body/);
    expect(started).toBe(0);
    expect(toUIMessageStreamResponse(run, { status: 202 }).status).toBe(202);
  });

  it('cancels the run when the request signal aborts, and adds the given headers', async () => {
    let aborted = false;
    const waiting = defineAgent('waiting', (_input, { signal }) => new Promise<string>(() => signal.addEventListener('abort', () => (aborted = true))));
    const controller = new AbortController();
    const response = toUIMessageStreamResponse((pace) => observeRun('wait', 'go', (run) => invoke$(waiting, 'go', { run }), { pace }), {
      signal: controller.signal,
      headers: { 'x-run': 'wait' },
    });
    expect(response.headers.get('x-run')).toBe('wait');
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    let text = '';
    while (!text.includes('text-start')) text += new TextDecoder().decode((await reader.read()).value);
    controller.abort('the user left');
    for (let next = await reader.read(); !next.done; next = await reader.read()) text += new TextDecoder().decode(next.value);
    expect(aborted).toBe(true);
    // Every open node ends as cancelled (text part closed, the ends as data-run parts), then an abort
    // chunk (as the ai package ends a stream it aborts) and an error chunk (what its chat shows).
    const frames = text.split('\n\n').filter((frame) => frame.startsWith('data: {')).map((frame) => JSON.parse(frame.slice(6)) as RunUIMessageChunk);
    // By default a browser sees the cancellation's generic message, not the reason the server gave.
    expect(frames.slice(-5)).toEqual([
      { type: 'text-end', id: expect.any(String) as unknown, providerMetadata: { rxagents: expect.objectContaining({ agentId: 'waiting', status: 'cancelled' }) as unknown } },
      { type: 'data-run', data: expect.objectContaining({ type: 'call-error', error: { name: 'AbortError', message: 'The operation was cancelled' } }) as unknown },
      { type: 'data-run', data: expect.objectContaining({ type: 'run-end', parentCallId: null, success: false, error: { name: 'AbortError', message: 'The operation was cancelled' } }) as unknown },
      { type: 'abort', reason: 'The operation was cancelled' },
      { type: 'error', errorText: 'The operation was cancelled' },
    ]);
    expect(frames.some((frame) => frame.type === 'finish')).toBe(false);
  });

  it('an aborted stream is read by the ai package as an aborted message, not a finished one', async () => {
    const controller = new AbortController();
    const waiting = defineAgent('waiting', (_input, { signal }) => {
      setImmediate(() => controller.abort(new Error('the user left')));
      return new Promise<string>((_resolve, reject) => signal.addEventListener('abort', () => reject(signal.reason)));
    });
    const ours = toUIMessageStream((pace) => observeRun('wait', 'go', (run) => invoke$(waiting, 'go', { run }), { pace }), { signal: controller.signal });
    const finished = new Promise<{ isAborted: boolean }>((resolve) => {
      void collect(createUIMessageStream({ execute: ({ writer }) => writer.merge(ours as never), onFinish: resolve }));
    });
    await expect(finished).resolves.toMatchObject({ isAborted: true });
  });

  it('a run aborted on the server is not a finished message to the ai package\'s own chat: status error, the text part cancelled', async () => {
    const server = new AbortController();
    const waiting = defineAgent('waiting', (_input, { signal }) => {
      setImmediate(() => server.abort(new Error('stopped by the operator')));
      return concat(of('Half a '), new Observable<string>((subscriber) => signal?.addEventListener('abort', () => subscriber.error(signal.reason))));
    });
    const finishes: { isAbort: boolean; isError: boolean }[] = [];
    const chat = new TestChat({
      transport: new DefaultChatTransport<RunUIMessage>({
        api: 'https://example.com/api/chat',
        // The server opts in to showing its errors as they are, so the page sees the operator's reason.
        fetch: async () =>
          toUIMessageStreamResponse((pace) => observeRun('wait', 'go', (run) => invoke$(waiting, 'go', { run }), { pace }), { signal: server.signal, exposeError: (error) => error }),
      }),
      onFinish: ({ isAbort, isError }) => finishes.push({ isAbort, isError }),
    });
    await chat.sendMessage({ text: 'go' });

    expect(chat.status).toBe('error');
    expect(chat.error?.message).toBe('stopped by the operator');
    expect(finishes).toEqual([{ isAbort: false, isError: true }]);
    const reply = chat.messages.at(-1) as RunUIMessage;
    expect(textParts(reply)).toEqual([{ agentId: 'waiting', status: 'cancelled', text: 'Half a ', state: 'done' }]);
    const ends = reply.parts.flatMap((part) => (part.type === 'data-run' ? [part.data as RunEvent] : [])).filter((event) => event.type === 'run-end');
    expect(ends).toEqual([expect.objectContaining({ parentCallId: null, success: false, error: { name: 'AbortError', message: 'stopped by the operator' } })]);
  });

  it('a run whose root ends cancelled shows in the chat as an error, not a finish', async () => {
    const cancelledRun = from<RunEvent[]>([
      { type: 'run-start', runId: 'r', callId: 'root', parentCallId: null, at: 0, name: 'story', input: 'go' },
      { type: 'run-end', runId: 'r', callId: 'root', parentCallId: null, at: 1, success: false, error: { name: 'AbortError', message: 'story was cancelled' }, durationMs: 1 },
    ]);
    const chat = new TestChat({ transport: new DefaultChatTransport<RunUIMessage>({ api: 'https://example.com/api/chat', fetch: async () => toUIMessageStreamResponse(cancelledRun) }) });
    await chat.sendMessage({ text: 'go' });
    expect(chat.status).toBe('error');
    expect(chat.error?.message).toBe('The operation was cancelled');
  });
});

/** The state a `useChat` keeps, in plain fields: enough for the `ai` package's `AbstractChat` to run in a test. */
class PlainChatState implements ChatState<RunUIMessage> {
  status: ChatStatus = 'ready';
  error: Error | undefined = undefined;
  messages: RunUIMessage[] = [];
  pushMessage = (message: RunUIMessage): void => void this.messages.push(message);
  popMessage = (): void => void this.messages.pop();
  replaceMessage = (index: number, message: RunUIMessage): void => void (this.messages[index] = message);
  snapshot = <T>(thing: T): T => structuredClone(thing);
}

/** The `ai` package's own chat (what `useChat` wraps), on a plain state. */
class TestChat extends AbstractChat<RunUIMessage> {
  constructor(init: Omit<ConstructorParameters<typeof AbstractChat<RunUIMessage>>[0], 'state'>) {
    super({ ...init, state: new PlainChatState() });
  }
}
