import type { LanguageModelV3CallOptions, LanguageModelV3Prompt, LanguageModelV3StreamPart } from '@ai-sdk/provider';
import { MockLanguageModelV3, convertArrayToReadableStream } from 'ai/test';
import { Observable, Subject } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import type { RunEvent, RunEventOf } from '@rxagents/core';
import { usage } from './mockModels';

/** A tool call the scripted model makes: the tool's name and its input. */
export interface ScriptedCall {
  readonly toolName: string;
  readonly input: unknown;
}

/** A tool result (or denial) the model was given, as the provider sees it. */
export type SeenResult = Extract<Extract<LanguageModelV3Prompt[number], { role: 'tool' }>['content'][number], { type: 'tool-result' }>;

/** The tool results in the last `tool` message of a prompt. */
export function lastToolResults(prompt: LanguageModelV3Prompt): SeenResult[] {
  const last = prompt.at(-1);
  if (last?.role !== 'tool') return [];
  return last.content.filter((part): part is SeenResult => part.type === 'tool-result');
}

/**
 * A model that calls `calls` (saying `preface` first) when the prompt ends with the user's message, and
 * answers `answer(results)` once it was given tool results: the same tool calls for the same prompt, on
 * every run, as a real model asked the same would.
 */
export function toolCallingModel(calls: readonly ScriptedCall[], answer: (results: SeenResult[]) => string, preface = 'Let me check. '): MockLanguageModelV3 {
  let callNumber = 0;
  return new MockLanguageModelV3({
    doStream: async (options: LanguageModelV3CallOptions) => {
      const results = lastToolResults(options.prompt);
      const parts: LanguageModelV3StreamPart[] =
        results.length === 0
          ? [
              { type: 'stream-start', warnings: [] },
              { type: 'text-start', id: 't1' },
              { type: 'text-delta', id: 't1', delta: preface },
              { type: 'text-end', id: 't1' },
              ...calls.map((call): LanguageModelV3StreamPart => ({ type: 'tool-call', toolCallId: `call-${++callNumber}`, toolName: call.toolName, input: JSON.stringify(call.input) })),
              { type: 'finish', finishReason: { unified: 'tool-calls', raw: 'tool_calls' }, usage: usage(10, 3) },
            ]
          : [
              { type: 'stream-start', warnings: [] },
              { type: 'text-start', id: 't2' },
              { type: 'text-delta', id: 't2', delta: answer(results) },
              { type: 'text-end', id: 't2' },
              { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage: usage(20, 5) },
            ];
      return { stream: convertArrayToReadableStream(parts) };
    },
  });
}

/** What a tool result or denial says, as text: `denied: <reason>`, or the JSON of the output. */
export function describeResult(result: SeenResult): string {
  const { output } = result;
  if (output.type === 'execution-denied') return `denied: ${output.reason ?? '(no reason)'}`;
  return 'value' in output ? JSON.stringify(output.value) : 'other';
}

/** Subscribes and collects the events as they come; `done` settles when the run completes. */
export function watch(events$: Observable<RunEvent>): { events: RunEvent[]; done: Promise<void>; stop: () => void; opened: Subject<RunEventOf<'interrupt'>> } {
  const events: RunEvent[] = [];
  const opened = new Subject<RunEventOf<'interrupt'>>();
  let stop = (): void => undefined;
  const done = new Promise<void>((resolve, reject) => {
    const subscription = events$.subscribe({
      next: (event) => {
        events.push(event);
        if (event.type === 'interrupt') opened.next(event);
      },
      error: reject,
      complete: resolve,
    });
    stop = () => subscription.unsubscribe();
  });
  return { events, done, stop, opened };
}

export const interruptsOf = (events: readonly RunEvent[]): RunEventOf<'interrupt'>[] => events.filter((event): event is RunEventOf<'interrupt'> => event.type === 'interrupt');

export const rootEnd = (events: readonly RunEvent[]): RunEventOf<'run-end'> | undefined =>
  events.find((event): event is RunEventOf<'run-end'> => event.type === 'run-end' && event.parentCallId === null);

/** Waits until `count` interrupts are open in `events` (the SDK works on Promises: give it turns). */
export async function untilAsked(events: readonly RunEvent[], count = 1, scheduler?: TestScheduler): Promise<RunEventOf<'interrupt'>[]> {
  for (let turn = 0; turn < 500; turn++) {
    const asked = interruptsOf(events);
    if (asked.length >= count) return asked;
    await new Promise((resolve) => setImmediate(resolve));
    if (scheduler !== undefined) advance(scheduler, 0);
  }
  throw new Error(`expected ${count} interrupts, saw ${interruptsOf(events).length}`);
}

/** A TestScheduler that only runs what is due when told to (see {@link advance}). */
export function virtualTime(): TestScheduler {
  const scheduler = new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
  scheduler.maxFrames = 0;
  return scheduler;
}

/** Moves `scheduler`'s virtual clock on by `ms` (from where the last move left it), running what falls due. */
export function advance(scheduler: TestScheduler, ms: number): void {
  scheduler.maxFrames += ms;
  scheduler.flush();
}
