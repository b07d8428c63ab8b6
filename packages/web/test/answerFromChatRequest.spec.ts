import { connectable, lastValueFrom, type Observable, ReplaySubject, share } from 'rxjs';
import {
  AbstractChat,
  DefaultChatTransport,
  lastAssistantMessageIsCompleteWithApprovalResponses,
  type ChatState,
  type ChatStatus,
  type DynamicToolUIPart,
  type UIMessage,
} from 'ai';
import { randomUUID } from 'node:crypto';
import { answerInterrupt, askForApproval, defineAgent, InterruptNotFoundError, invoke$, MemoryRunStore, observeRun, pendingInterrupts, type RunEvent } from '@rxagents/core';
import {
  answerFromChatRequest,
  approvalAnswersOf,
  ChatRequestError,
  toUIMessageStreamResponse,
  type AnswerApproval,
  type RunMessageMetadata,
  type RunUIDataTypes,
} from '@rxagents/web';

type RunUIMessage = UIMessage<RunMessageMetadata, RunUIDataTypes>;

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

const cashier = defineAgent('cashier', async (input, { run }) => {
  const decision = await lastValueFrom(askForApproval(run!, 'refund', { customer: input, amount: 120 }));
  return decision.approved ? 'Refunded 120' : `No refund: ${decision.reason ?? 'refused'}`;
});

/** A run kept going by the server whatever its viewers do (as a run registry keeps it), with its output. */
function heldRun(): { events$: Observable<RunEvent>; output: Promise<unknown> } {
  const events$ = observeRun('refund', 'Ada', (run) => invoke$(cashier, 'Ada', { run })).pipe(share({ connector: () => new ReplaySubject<RunEvent>(), resetOnError: false, resetOnComplete: false, resetOnRefCountZero: false }));
  const output = new Promise<unknown>((resolve) =>
    events$.subscribe((event) => {
      if (event.type === 'run-end' && event.parentCallId === null) resolve(event.output);
    }),
  );
  return { events$, output };
}

const answerHere: AnswerApproval = (runId, interruptId, answer) => answerInterrupt(runId, interruptId, answer);

/** Waits, a bounded number of turns of the event loop, until `check` holds. */
async function until(check: () => boolean): Promise<void> {
  for (let turn = 0; turn < 500 && !check(); turn++) await new Promise((resolve) => setImmediate(resolve));
  expect(check()).toBe(true);
}

const approvalPart = (chat: TestChat): DynamicToolUIPart | undefined =>
  chat.messages.flatMap((message) => message.parts).find((part): part is DynamicToolUIPart => part.type === 'dynamic-tool');

describe("answering a run's approval from the ai package's chat", () => {
  it('reads what the chat holds after addToolApprovalResponse while the run streams, and the run goes on to the denial', async () => {
    const run = heldRun();
    const sent: Request[] = [];
    const chat = new TestChat({
      sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
      transport: new DefaultChatTransport<RunUIMessage>({
        api: 'https://example.com/api/chat',
        fetch: async (input, init) => {
          sent.push(new Request(String(input), init));
          return toUIMessageStreamResponse(run.events$);
        },
      }),
    });
    const finished = chat.sendMessage({ text: 'Refund Ada' });
    await until(() => approvalPart(chat)?.state === 'approval-requested');
    const part = approvalPart(chat)!;
    expect(part).toMatchObject({ toolName: 'refund', input: { customer: 'Ada', amount: 120 } });
    await chat.addToolApprovalResponse({ id: part.approval!.id, approved: false, reason: 'Over the limit' });
    // While the stream is open the chat sends nothing: the page posts the chat's messages to its answer route.
    expect(chat.status).toBe('streaming');
    const answerRoute = new Request('https://example.com/api/answers', { method: 'POST', body: JSON.stringify({ id: chat.id, messages: chat.messages }) });
    const { answers } = await answerFromChatRequest(answerRoute, answerHere);
    expect(answers).toEqual([{ runId: chat.lastMessage?.metadata?.runId, interruptId: part.approval!.id, answer: { approved: false, reason: 'Over the limit' } }]);
    await finished;
    expect(await run.output).toBe('No refund: Over the limit');
    expect(approvalPart(chat)).toMatchObject({ state: 'output-denied', approval: { id: part.approval!.id, approved: false, reason: 'Over the limit' } });
    expect(chat.status).toBe('ready');
    // The part is settled: the chat does not post the approval again.
    expect(sent).toHaveLength(1);
  });

  it('reads the request the chat itself sends after addToolApprovalResponse when its stream was lost while the card showed', async () => {
    const run = heldRun();
    const bodies: unknown[] = [];
    const answered: unknown[] = [];
    const chatRoute = async (request: Request): Promise<Response> => {
      const copy = request.clone();
      const { answers } = await answerFromChatRequest(request, (runId, interruptId, answer) => {
        answered.push({ runId, interruptId, answer });
        answerInterrupt(runId, interruptId, answer);
      });
      bodies.push(await copy.json());
      // The run, kept by the server, continues the page's message after the questions it answered.
      return toUIMessageStreamResponse(run.events$, { continueAfter: answers.map((answer) => answer.interruptId) });
    };
    const chat = new TestChat({
      sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
      transport: new DefaultChatTransport<RunUIMessage>({
        api: 'https://example.com/api/chat',
        fetch: async (input, init) => dropAfterApprovalRequest(await chatRoute(new Request(String(input), init))),
      }),
    });
    await chat.sendMessage({ text: 'Refund Ada' });
    expect(chat.status).toBe('error');
    const part = approvalPart(chat)!;
    expect(part.state).toBe('approval-requested');
    await chat.addToolApprovalResponse({ id: part.approval!.id, approved: true });
    expect(await run.output).toBe('Refunded 120');
    await until(() => chat.status === 'ready');
    expect(bodies).toHaveLength(2);
    expect(bodies[1]).toMatchObject({ id: chat.id, trigger: 'submit-message', messageId: chat.lastMessage?.id });
    expect(answered).toEqual([{ runId: chat.lastMessage?.metadata?.runId, interruptId: part.approval!.id, answer: { approved: true } }]);
    // One message: the tool part settled with the decision, the agent's text after it in its own part.
    expect(chat.messages.map((message) => message.role)).toEqual(['user', 'assistant']);
    expect(approvalPart(chat)).toMatchObject({ state: 'output-available', output: { approved: true } });
    expect(chat.lastMessage?.parts.filter((part) => part.type === 'text').map((part) => part.text)).toEqual(['', 'Refunded 120']);
    expect(chat.lastMessage?.metadata).toMatchObject({ success: true });
  });

  it('lets the chat send each answer itself when the message ends at every approval (endAtApproval), one request per question', async () => {
    const clerk = defineAgent('clerk', async (input, { run }) => {
      const refund = await lastValueFrom(askForApproval(run!, 'refund', { customer: input, amount: 120 }));
      const mail = await lastValueFrom(askForApproval(run!, 'email', { to: input, text: refund.approved ? 'Refunded' : 'Sorry' }));
      return `refund ${refund.approved}, email ${mail.approved}`;
    });
    const events$ = observeRun('refund', 'Ada', (run) => invoke$(clerk, 'Ada', { run })).pipe(share({ connector: () => new ReplaySubject<RunEvent>(), resetOnError: false, resetOnComplete: false, resetOnRefCountZero: false }));
    const output = new Promise<unknown>((resolve) => events$.subscribe((event) => event.type === 'run-end' && event.parentCallId === null && resolve(event.output)));
    const triggers: unknown[] = [];
    const chat = new TestChat({
      sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
      transport: new DefaultChatTransport<RunUIMessage>({
        api: 'https://example.com/api/chat',
        fetch: async (input, init) => {
          const request = new Request(String(input), init);
          const { answers, body } = await answerFromChatRequest(request, answerHere);
          triggers.push(body.trigger);
          return toUIMessageStreamResponse(events$, { continueAfter: answers.map((answer) => answer.interruptId), endAtApproval: true });
        },
      }),
    });
    await chat.sendMessage({ text: 'Refund Ada' });
    const tools = () => chat.lastMessage!.parts.filter((part): part is DynamicToolUIPart => part.type === 'dynamic-tool');
    expect(chat.status).toBe('ready');
    expect(tools().map((part) => [part.toolName, part.state])).toEqual([['refund', 'approval-requested']]);
    expect(chat.lastMessage?.metadata).not.toHaveProperty('success');
    await chat.addToolApprovalResponse({ id: tools()[0]!.approval!.id, approved: true });
    await until(() => tools().length === 2 && chat.status === 'ready');
    expect(tools().map((part) => [part.toolName, part.state])).toEqual([['refund', 'output-available'], ['email', 'approval-requested']]);
    expect(tools()[1]!.input).toEqual({ to: 'Ada', text: 'Refunded' });
    await chat.addToolApprovalResponse({ id: tools()[1]!.approval!.id, approved: false });
    expect(await output).toBe('refund true, email false');
    await until(() => chat.lastMessage?.metadata?.success === true && chat.status === 'ready');
    expect(tools().map((part) => part.state)).toEqual(['output-available', 'output-denied']);
    expect(chat.messages.map((message) => message.role)).toEqual(['user', 'assistant']);
    expect(triggers).toEqual(['submit-message', 'submit-message', 'submit-message']);
  });

  it('keeps the approval a page holds answerable after the server restarted: the resumed run asks again under the same id', async () => {
    const store = new MemoryRunStore();
    const runId = randomUUID();
    /** One server process: it keeps the durable run going, from its journal, until it stops. */
    const process = () => {
      const events$ = connectable(observeRun('refund', 'Ada', (run) => invoke$(cashier, 'Ada', { run }), { store, runId }), { connector: () => new ReplaySubject<RunEvent>(), resetOnDisconnect: false });
      const output = new Promise<unknown>((resolve) => events$.subscribe((event) => event.type === 'run-end' && event.parentCallId === null && resolve(event.output)));
      const kept = events$.connect();
      return { events$, output, stop: () => kept.unsubscribe() };
    };
    let server = process();
    const chat = new TestChat({
      sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
      transport: new DefaultChatTransport<RunUIMessage>({
        api: 'https://example.com/api/chat',
        fetch: async (input, init) => {
          const { answers } = await answerFromChatRequest(new Request(String(input), init), answerHere);
          return toUIMessageStreamResponse(server.events$, { continueAfter: answers.map((answer) => answer.interruptId), endAtApproval: true });
        },
      }),
    });
    await chat.sendMessage({ text: 'Refund Ada' });
    const card = approvalPart(chat)!;
    expect(card.state).toBe('approval-requested');
    // The server restarts while the card shows: the run resumes from its journal in a new process.
    server.stop();
    server = process();
    await until(() => pendingInterrupts(runId).some((asked) => asked.callId !== card.toolMetadata?.['callId']));
    expect(pendingInterrupts(runId).map((asked) => asked.interruptId)).toContain(card.approval!.id);
    await chat.addToolApprovalResponse({ id: card.approval!.id, approved: true });
    expect(await server.output).toBe('Refunded 120');
    await until(() => chat.status === 'ready' && chat.lastMessage?.metadata?.success === true);
    expect(approvalPart(chat)).toMatchObject({ state: 'output-available', approval: { id: card.approval!.id } });
    expect(chat.lastMessage?.parts.filter((part) => part.type === 'text').map((part) => part.text).join('')).toBe('Refunded 120');
    server.stop();
  });

  it("refuses an answer naming another run: the interrupt's own run must match", async () => {
    const run = heldRun();
    const asked = await new Promise<RunEvent & { type: 'interrupt' }>((resolve) =>
      run.events$.subscribe((event) => {
        if (event.type === 'interrupt') resolve(event);
      }),
    );
    const body = chatBody({ runId: 'someone-elses-run', interruptId: asked.interruptId, approval: { id: asked.interruptId, approved: true } });
    await expect(answerFromChatRequest(post(body), answerHere)).rejects.toThrow(InterruptNotFoundError);
    answerInterrupt(asked.runId, asked.interruptId, { approved: false });
    expect(await run.output).toBe('No refund: refused');
  });
});

describe('approvalAnswersOf and answerFromChatRequest: untrusted bodies', () => {
  const good = { runId: 'r1', interruptId: 'i1', approval: { id: 'i1', approved: true } };

  it('reads answered tool parts once each, and nothing from parts not yet answered or already settled', () => {
    const body = {
      messages: [
        { id: 'u', role: 'user', parts: [{ type: 'text', text: 'go' }] },
        {
          id: 'r1',
          role: 'assistant',
          metadata: { runId: 'r1' },
          parts: [
            { type: 'dynamic-tool', state: 'approval-responded', approval: { id: 'i1', approved: true } },
            { type: 'dynamic-tool', state: 'approval-responded', approval: { id: 'i1', approved: true } },
            { type: 'tool-refund', state: 'approval-responded', approval: { id: 'i2', approved: false, reason: 'no' }, toolMetadata: { runId: 'r2' } },
            { type: 'dynamic-tool', state: 'approval-requested', approval: { id: 'i3' } },
            { type: 'dynamic-tool', state: 'output-denied', approval: { id: 'i4', approved: false } },
          ],
        },
      ],
    };
    expect(approvalAnswersOf(body)).toEqual([
      { runId: 'r1', interruptId: 'i1', answer: { approved: true } },
      { runId: 'r2', interruptId: 'i2', answer: { approved: false, reason: 'no' } },
    ]);
  });

  it.each([
    ['not an object', 'hello', ''],
    ['messages not a list', { messages: {} }, 'messages'],
    ['a message without parts', { messages: [{ id: 'm', role: 'assistant' }] }, 'messages.0.parts'],
    ['a decision that is not a boolean', chatBody({ ...good, approval: { id: 'i1', approved: 'yes' } }), 'messages.0.parts.0.approval.approved'],
    ['an id too long', chatBody({ ...good, approval: { id: 'x'.repeat(257), approved: true } }), 'messages.0.parts.0.approval.id'],
    ['a reason too long', chatBody({ ...good, approval: { id: 'i1', approved: false, reason: 'x'.repeat(10_001) } }), 'messages.0.parts.0.approval.reason'],
    ['no run id', { messages: [{ id: 'm', role: 'assistant', parts: [{ type: 'dynamic-tool', state: 'approval-responded', approval: { id: 'i1', approved: true } }] }] }, 'messages.0.parts.0.toolMetadata.runId'],
    ['one approval answered both ways', { messages: [{ ...chatBody(good).messages[0]!, parts: [...chatBody(good).messages[0]!.parts, { ...chatBody(good).messages[0]!.parts[0]!, approval: { id: 'i1', approved: false } }] }] }, 'messages.0.parts.1.approval'],
  ])('refuses %s, naming the field and not the value', (_, body, path) => {
    let caught: unknown;
    try {
      approvalAnswersOf(body);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ChatRequestError);
    const error = caught as ChatRequestError;
    expect(error).toMatchObject({ code: 'CHAT_REQUEST_INVALID', status: 400 });
    expect(error.issues.map((issue) => issue.path)).toContain(path);
    expect(error.message).not.toMatch(/xxxx|yes/);
  });

  it('refuses a body that is too large (reading stops) or not JSON, and answers nothing', async () => {
    const answer = jest.fn<Promise<void>, Parameters<AnswerApproval>>(async () => undefined);
    const huge = JSON.stringify(chatBody({ ...good, approval: { id: 'i1', approved: true, reason: 'x'.repeat(2_000) } }));
    await expect(answerFromChatRequest(post(huge), answer, { maxBodyBytes: 1_024 })).rejects.toMatchObject({ code: 'CHAT_REQUEST_TOO_LARGE', status: 413 });
    await expect(answerFromChatRequest(post('{"messages": ['), answer)).rejects.toMatchObject({ code: 'CHAT_REQUEST_INVALID', status: 400 });
    // One bad part refuses the whole body: the good one is not answered either.
    const mixed = chatBody(good);
    mixed.messages[0]!.parts.push({ type: 'dynamic-tool', state: 'approval-responded', approval: { id: 'i2', approved: 'no' } });
    await expect(answerFromChatRequest(post(JSON.stringify(mixed)), answer)).rejects.toBeInstanceOf(ChatRequestError);
    expect(answer).not.toHaveBeenCalled();
    await expect(answerFromChatRequest(post(JSON.stringify(chatBody(good))), answer, { maxBodyBytes: 0 })).rejects.toThrow(/maxBodyBytes/);
  });

  it('keeps no key the page chose in the body it returns', async () => {
    const text = `{"__proto__": {"admin": true}, "model": "x", "messages": [], "id": "chat-1"}`;
    const { body } = await answerFromChatRequest(post(text), answerHere);
    expect(body).toEqual({ id: 'chat-1', messages: [] });
    expect((body as { admin?: unknown }).admin).toBeUndefined();
  });
});

/** A chat request's body with one assistant message holding one answered tool part. */
function chatBody({ runId, interruptId, approval }: { runId: string; interruptId: string; approval: Record<string, unknown> }) {
  return {
    id: 'chat-1',
    trigger: 'submit-message',
    messages: [{ id: runId, role: 'assistant', metadata: { runId, name: 'refund' }, parts: [{ type: 'dynamic-tool', toolName: 'refund', toolCallId: interruptId, state: 'approval-responded', input: {}, approval } as Record<string, unknown>] }],
  };
}

const post = (body: unknown): Request => new Request('https://example.com/api/chat', { method: 'POST', body: typeof body === 'string' ? body : JSON.stringify(body) });

/** The response as a browser that lost its connection right after the approval request would read it. */
function dropAfterApprovalRequest(response: Response): Response {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let seen = '';
  const body = new ReadableStream<Uint8Array>(
    {
      pull: async (controller) => {
        // The chunk with the request was delivered; the next read finds the connection gone.
        if (seen.includes('"tool-approval-request"')) {
          await reader.cancel();
          return controller.error(new TypeError('network error'));
        }
        const next = await reader.read();
        if (next.done) return controller.close();
        controller.enqueue(next.value);
        seen += decoder.decode(next.value, { stream: true });
      },
    },
    { highWaterMark: 0 },
  );
  return new Response(body, { status: response.status, headers: response.headers });
}
