import { streamText, type LanguageModel, type ModelMessage, type ToolModelMessage, type AssistantModelMessage, type StopCondition, type TextStreamPart, type ToolSet } from 'ai';
import { Observable } from 'rxjs';
import { fromAbortSignal, type RunContext, whenRoom } from '@rxagents/core';
import type { AiSdkSettings } from './AiSdkSettings';

/** @internal What {@link streamModelParts} sends to `streamText`. */
export interface StreamModelPartsRequest {
  readonly model: LanguageModel;
  readonly system?: string;
  readonly messages: ModelMessage[];
  readonly tools?: ToolSet;
  /** The SDK's step bound for this call (its default: one step). */
  readonly stopWhen?: StopCondition<ToolSet>;
  /** Given the call's response messages (what the model said, the tool results) before the Observable completes. */
  readonly onResponse?: (messages: readonly ResponseMessage[]) => void;
  readonly settings?: AiSdkSettings;
  readonly signal?: AbortSignal;
  /** A watched run's pacing: while it returns a Promise, the next part waits to be given (see `RunContext.pace`). */
  readonly pace?: RunContext['pace'];
  /** What every tool's `execute` gets as `experimental_context`. */
  readonly toolContext?: unknown;
}

/** @internal What a call said, as the SDK gives it back: the model's messages and the tool results. */
export type ResponseMessage = AssistantModelMessage | ToolModelMessage;

/** A part of the SDK's full stream that is not terminal: `error` and `abort` become the Observable's error. */
export type ModelStreamPart = Exclude<TextStreamPart<ToolSet>, { type: 'error' } | { type: 'abort' }>;

/**
 * @internal Runs `streamText` lazily and emits the parts of its full stream.
 *
 * @remarks
 * One `streamText` call per subscription. The SDK's abort signal aborts when `request.signal` aborts and
 * when the subscriber unsubscribes, so dropping the subscription cancels the HTTP request. An `error` part
 * errors the Observable with the provider's error and cancels the rest of the stream; an abort of
 * `request.signal` errors it at once with the signal's reason, so a cut-off reply is never mistaken for a
 * whole one. An `abort` part the SDK raised itself (its `timeout` setting) errors it with an `Error` named
 * `TimeoutError`. The SDK's default `onError` (a `console.error`) is replaced: errors are delivered, not logged.
 *
 * With `request.pace`, each part is given only once the gate it returns (if any) is open, checked again
 * after every wake, so a slow reader of a watched run holds the reply at one waiting part instead of
 * queueing its events. (`streamText` itself still reads the provider's stream to its end.)
 */
export function streamModelParts(request: StreamModelPartsRequest): Observable<ModelStreamPart> {
  return new Observable<ModelStreamPart>((subscriber) => {
    const outer = request.signal;
    if (outer?.aborted) {
      subscriber.error(outer.reason);
      return;
    }
    const controller = new AbortController();
    // Error at once, not when the provider next yields: a model that ignores its signal must not hang the reply.
    const outerAbort =
      outer === undefined
        ? undefined
        : fromAbortSignal(outer).subscribe((reason) => {
            controller.abort(reason);
            subscriber.error(reason);
          });
    let finished = false;

    let reader: ReadableStreamDefaultReader<TextStreamPart<ToolSet>>;
    let result: ReturnType<typeof streamText>;
    try {
      result = streamText({
        ...request.settings,
        model: request.model,
        ...(request.system === undefined ? {} : { system: request.system }),
        messages: request.messages,
        ...(request.messages.some((message) => message.role === 'system') ? { allowSystemInMessages: true } : {}),
        ...(request.tools === undefined ? {} : { tools: request.tools }),
        ...(request.stopWhen === undefined ? {} : { stopWhen: request.stopWhen }),
        ...(request.toolContext === undefined ? {} : { experimental_context: request.toolContext }),
        abortSignal: controller.signal,
        onError: () => undefined,
      });
      reader = result.fullStream.getReader();
    } catch (error) {
      outerAbort?.unsubscribe();
      subscriber.error(error);
      return;
    }

    const { pace } = request;
    const pump = (): void => {
      reader.read().then(
        ({ done, value }) => {
          if (subscriber.closed) return;
          if (done) {
            finished = true;
            const { onResponse } = request;
            if (onResponse === undefined) subscriber.complete();
            else {
              // Read only now: the getter makes a Promise that rejects, unhandled, when the call is aborted.
              result.response.then(
                ({ messages }) => {
                  if (subscriber.closed) return;
                  onResponse(messages);
                  subscriber.complete();
                },
                (error: unknown) => {
                  if (!subscriber.closed) subscriber.error(error);
                },
              );
            }
          } else if (value.type === 'error') {
            // Not finished: the provider may keep streaming after an error part; the teardown cancels it.
            subscriber.error(value.error);
          } else if (value.type === 'abort') {
            finished = true;
            subscriber.error(controller.signal.aborted ? controller.signal.reason : sdkTimeout());
          } else {
            // The part waits here, read but not given, until the run has room: the check is right before the
            // events it makes, so calls sharing the run cannot all pass it at once.
            whenRoom(
              pace,
              subscriber,
              () => {
                subscriber.next(value);
                pump();
              },
              (error) => subscriber.error(error),
            );
          }
        },
        (error: unknown) => {
          finished = true;
          if (!subscriber.closed) subscriber.error(controller.signal.aborted ? controller.signal.reason : error);
        },
      );
    };
    pump();

    return () => {
      outerAbort?.unsubscribe();
      if (finished) return;
      controller.abort();
      reader.cancel().catch(() => undefined);
    };
  });
}

// The SDK's signal also aborts on its own `timeout` setting; its abort part then carries only a message
// (a serialised DOMException, `{}` when the DOMException comes from another realm), so say it plainly.
function sdkTimeout(): Error {
  const error = new Error("The model call was aborted by the AI SDK's timeout setting");
  error.name = 'TimeoutError';
  return error;
}
