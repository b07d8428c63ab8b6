import { concat, finalize, from, lastValueFrom, map, NEVER, type Observable, toArray } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { z } from 'zod';
import { readUIMessageStream, type DynamicToolUIPart, type UIMessage, type UIMessageChunk } from 'ai';
import { answerInterrupt, askForApproval, askForInput, defineAgent, invoke$, observeRun, type RunEvent } from '@rxagents/core';
import { toEventStream, toUIMessageStream, type RunInterruptData, type RunMessageMetadata, type RunUIDataTypes, type RunUIMessageChunk } from '@rxagents/web';

type RunUIMessage = UIMessage<RunMessageMetadata, RunUIDataTypes>;

// Our chunks are the ai package's chunks (checked by the compiler).
const asAiChunk = (chunk: RunUIMessageChunk): UIMessageChunk => chunk;

/** Each message the ai package's own reader builds from our stream, as it grows (a failed run's error is reported to `onError`). */
function messagesOf(events$: Observable<RunEvent>, onError?: (error: unknown) => void): AsyncIterable<RunUIMessage> {
  const chunks = toUIMessageStream(events$).pipeThrough(new TransformStream<RunUIMessageChunk, UIMessageChunk>({ transform: (chunk, c) => c.enqueue(asAiChunk(chunk)) }));
  return readUIMessageStream<RunUIMessage>(onError === undefined ? { stream: chunks, terminateOnError: true } : { stream: chunks, onError });
}

const toolParts = (message: RunUIMessage): DynamicToolUIPart[] => message.parts.filter((part): part is DynamicToolUIPart => part.type === 'dynamic-tool');
const interruptParts = (message: RunUIMessage): { id: string | undefined; data: RunInterruptData }[] =>
  message.parts.flatMap((part) => (part.type === 'data-interrupt' ? [{ id: part.id, data: part.data as RunInterruptData }] : []));

const cashier = defineAgent('cashier', async (input, { run }) => {
  const decision = await lastValueFrom(askForApproval(run!, 'refund', { customer: input, amount: 120 }, { question: `Refund 120 EUR to ${input}?` }));
  return decision.approved ? 'Refunded 120' : `No refund: ${decision.reason ?? 'refused'}`;
});

/** The events of a run on virtual time, taken whole (the run ends on its own within them). */
function eventsOnVirtualTime(start: (scheduler: TestScheduler) => Observable<RunEvent>): RunEvent[] {
  const scheduler = new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
  let events: RunEvent[] = [];
  scheduler.run(() => {
    start(scheduler).pipe(toArray()).subscribe((all) => (events = all));
  });
  return events;
}

describe('toUIMessageStream: interrupts', () => {
  it("shows an approval as a tool part waiting for approval, read by the ai package's readUIMessageStream, then its result", async () => {
    const seen: RunUIMessage[] = [];
    for await (const message of messagesOf(
      observeRun('refund', 'Ada', (run) => invoke$(cashier, 'Ada', { run })).pipe(
        map((event) => {
          // The person approves as soon as the page shows the question.
          if (event.type === 'interrupt') queueMicrotask(() => answerInterrupt(event.runId, event.interruptId, { approved: true }));
          return event;
        }),
      ),
    )) {
      seen.push(structuredClone(message));
    }
    const waiting = seen.map(toolParts).flat().find((part) => part.state === 'approval-requested');
    expect(waiting).toMatchObject({ type: 'dynamic-tool', toolName: 'refund', title: 'Refund 120 EUR to Ada?', input: { customer: 'Ada', amount: 120 } });
    expect(waiting?.approval?.id).toBe(waiting?.toolCallId);
    const last = seen.at(-1)!;
    expect(waiting?.toolMetadata).toEqual({ runId: last.metadata?.runId, interruptId: waiting?.approval?.id, callId: expect.any(String) });
    expect(toolParts(last)).toEqual([expect.objectContaining({ state: 'output-available', toolCallId: waiting?.toolCallId, output: { approved: true } })]);
    expect(last.parts.filter((part) => part.type === 'text').map((part) => part.text)).toEqual(['Refunded 120']);
    // The interrupt's events are the tool part, not data-run parts as well.
    expect(last.parts.flatMap((part) => (part.type === 'data-run' ? [(part.data as RunEvent).type] : []))).not.toContain('interrupt');
  });

  it('ends a refused approval as output-denied, and one refused by its timeout too', async () => {
    const refused = await lastMessage(
      observeRun('refund', 'Ada', (run) => invoke$(cashier, 'Ada', { run })).pipe(
        map((event) => {
          if (event.type === 'interrupt') queueMicrotask(() => answerInterrupt(event.runId, event.interruptId, { approved: false, reason: 'Too much' }));
          return event;
        }),
      ),
    );
    expect(toolParts(refused).map((part) => part.state)).toEqual(['output-denied']);
    const timedOut = eventsOnVirtualTime((scheduler) => observeRun('refund', 'go', (run) => askForApproval(run, 'refund', {}, { timeout: 50, onTimeout: 'refuse' }), { scheduler }));
    expect(toolParts(await lastMessage(from(timedOut))).map((part) => part.state)).toEqual(['output-denied']);
  });

  it('ends an approval that timed out or was cut off as output-error', async () => {
    const timedOut = eventsOnVirtualTime((scheduler) => observeRun('refund', 'go', (run) => askForApproval(run, 'refund', {}, { timeout: 50 }), { scheduler }));
    expect(toolParts(await lastMessage(from(timedOut)))).toEqual([expect.objectContaining({ state: 'output-error', errorText: expect.any(String) })]);
    // Events that stop while the question is open (the server went away): the part ends as failed.
    const cutOff = timedOut.filter((event) => event.type === 'run-start' || event.type === 'interrupt');
    expect(toolParts(await lastMessage(from(cutOff))).map((part) => part.state)).toEqual(['output-error']);
  });

  it('shows a request for input as a data-interrupt part, replaced by its answer', async () => {
    const seen: RunUIMessage[] = [];
    const asked = observeRun('ask', 'go', (run) => askForInput(run, 'How many seats?', { schema: z.number().int().min(1) })).pipe(
      map((event) => {
        if (event.type === 'interrupt') queueMicrotask(() => answerInterrupt(event.runId, event.interruptId, 3));
        return event;
      }),
    );
    for await (const message of messagesOf(asked)) seen.push(structuredClone(message));
    const open = seen.map(interruptParts).flat().find((part) => part.data.state === 'open');
    expect(open?.data).toMatchObject({ question: 'How many seats?', schema: { type: 'integer', minimum: 1 }, runId: seen.at(-1)?.metadata?.runId });
    expect(open?.id).toBe(open?.data.interruptId);
    expect(interruptParts(seen.at(-1)!)).toEqual([{ id: open?.id, data: { ...open?.data, state: 'answered', answer: 3 } }]);
  });

  it('closes a request for input that timed out, with its code and a redacted reason', async () => {
    const events = eventsOnVirtualTime((scheduler) => observeRun('ask', 'go', (run) => askForInput(run, 'Name?', { timeout: 100 }), { scheduler }));
    const [part] = interruptParts(await lastMessage(from(events)));
    expect(part?.data).toMatchObject({ state: 'closed', errorCode: 'INTERRUPT_TIMEOUT' });
    expect(part?.data.errorText).toBe('An error occurred on the server');
  });

  it("redacts an unanswered interrupt's error in the Server-Sent Events too", async () => {
    const events = eventsOnVirtualTime((scheduler) => observeRun('ask', 'go', (run) => askForInput(run, 'Name?', { timeout: 100 }), { scheduler }));
    const raw = events.find((event) => event.type === 'interrupt-end');
    const sent: string[] = [];
    const decoder = new TextDecoder();
    for await (const bytes of toEventStream(from(events))) sent.push(decoder.decode(bytes));
    const frame = sent.join('').split('\n\n').find((text) => text.includes('"interrupt-end"'));
    expect(raw?.type === 'interrupt-end' && raw.error?.message).toBeTruthy();
    expect(frame).toContain('INTERRUPT_TIMEOUT');
    expect(raw?.type === 'interrupt-end' && raw.error?.message).toMatch(/within 100 ms/);
    expect(frame).not.toMatch(/within 100 ms/);
    expect(frame).toContain('An error occurred on the server');
  });
});

/** The message a run ends as; a failed run's error (the stream's `error` chunk) is expected and ignored. */
describe('toUIMessageStream: continueAfter', () => {
  it('sends nothing the page has: from the answered interrupt on, with start again and the open call reopened', async () => {
    const events = await lastValueFrom(
      observeRun('refund', 'Ada', (run) => invoke$(cashier, 'Ada', { run })).pipe(
        map((event) => {
          if (event.type === 'interrupt') queueMicrotask(() => answerInterrupt(event.runId, event.interruptId, { approved: true }));
          return event;
        }),
        toArray(),
      ),
    );
    const asked = events.find((event) => event.type === 'interrupt');
    const chunks: RunUIMessageChunk[] = [];
    for await (const chunk of toUIMessageStream(from(events), { continueAfter: [asked?.type === 'interrupt' ? asked.interruptId : ''] })) chunks.push(chunk);
    expect(chunks.map((chunk) => chunk.type)).toEqual(['start', 'text-start', 'tool-output-available', 'text-delta', 'text-end', 'data-run', 'finish']);
    expect(chunks[0]).toEqual({ type: 'start', messageId: asked?.runId, messageMetadata: { runId: asked?.runId, name: 'refund' } });
  });

  it('ends the message at an approval with endAtApproval: open text parts end, finish says tool-calls, the run is not read further', async () => {
    const events = await lastValueFrom(
      observeRun('refund', 'Ada', (run) => invoke$(cashier, 'Ada', { run })).pipe(
        map((event) => {
          if (event.type === 'interrupt') queueMicrotask(() => answerInterrupt(event.runId, event.interruptId, { approved: true }));
          return event;
        }),
        toArray(),
      ),
    );
    let unsubscribed = false;
    const kept = concat(from(events), NEVER).pipe(finalize(() => (unsubscribed = true)));
    const chunks: RunUIMessageChunk[] = [];
    for await (const chunk of toUIMessageStream(kept, { endAtApproval: true })) chunks.push(chunk);
    expect(chunks.map((chunk) => chunk.type)).toEqual(['start', 'data-run', 'text-start', 'tool-input-start', 'tool-input-available', 'tool-approval-request', 'text-end', 'finish']);
    expect(chunks.at(-2)).toMatchObject({ providerMetadata: { rxagents: { agentId: 'cashier', status: 'streaming' } } });
    expect(chunks.at(-1)).toMatchObject({ type: 'finish', finishReason: 'tool-calls' });
    expect(unsubscribed).toBe(true);
  });

  it('refuses a continueAfter that is not a list of ids', () => {
    expect(() => toUIMessageStream(from([]), { continueAfter: [''] })).toThrow(/continueAfter/);
    expect(() => toUIMessageStream(from([]), { continueAfter: 'i1' as unknown as string[] })).toThrow(/continueAfter/);
    expect(() => toUIMessageStream(from([]), { endAtApproval: 'yes' as unknown as boolean })).toThrow(/endAtApproval/);
  });
});

async function lastMessage(events$: Observable<RunEvent>): Promise<RunUIMessage> {
  let last: RunUIMessage | undefined;
  for await (const message of messagesOf(events$, () => undefined)) last = message;
  return last!;
}
