import { streamText, type LanguageModel, type ModelMessage, type TextStreamPart, type ToolSet } from 'ai';
import { Observable } from 'rxjs';
import type { AiSdkSettings } from './AiSdkSettings';

/** @internal What {@link streamModelParts} sends to `streamText`. */
export interface StreamModelPartsRequest {
  readonly model: LanguageModel;
  readonly system?: string;
  readonly messages: ModelMessage[];
  readonly tools?: ToolSet;
  readonly settings?: AiSdkSettings;
  readonly signal?: AbortSignal;
}

/** A part of the SDK's full stream that is not terminal: `error` and `abort` become the Observable's error. */
export type ModelStreamPart = Exclude<TextStreamPart<ToolSet>, { type: 'error' } | { type: 'abort' }>;

/**
 * @internal Runs `streamText` lazily and emits the parts of its full stream.
 *
 * @remarks
 * One `streamText` call per subscription. The SDK's abort signal aborts when `request.signal` aborts and
 * when the subscriber unsubscribes, so dropping the subscription cancels the HTTP request. An `error` part
 * errors the Observable with the provider's error; an `abort` part (or an already aborted signal) errors it
 * with the signal's reason, so a cut-off reply is never mistaken for a whole one. The SDK's default
 * `onError` (a `console.error`) is replaced: errors are delivered, not logged.
 */
export function streamModelParts(request: StreamModelPartsRequest): Observable<ModelStreamPart> {
  return new Observable<ModelStreamPart>((subscriber) => {
    const outer = request.signal;
    if (outer?.aborted) {
      subscriber.error(outer.reason);
      return;
    }
    const controller = new AbortController();
    const onOuterAbort = (): void => controller.abort(outer?.reason);
    outer?.addEventListener('abort', onOuterAbort, { once: true });
    const abortReason = (): unknown => (outer?.aborted ? outer.reason : controller.signal.reason);
    let finished = false;

    let reader: ReadableStreamDefaultReader<TextStreamPart<ToolSet>>;
    try {
      const result = streamText({
        ...request.settings,
        model: request.model,
        ...(request.system === undefined ? {} : { system: request.system }),
        messages: request.messages,
        ...(request.messages.some((message) => message.role === 'system') ? { allowSystemInMessages: true } : {}),
        ...(request.tools === undefined ? {} : { tools: request.tools }),
        abortSignal: controller.signal,
        onError: () => undefined,
      });
      reader = result.fullStream.getReader();
    } catch (error) {
      outer?.removeEventListener('abort', onOuterAbort);
      subscriber.error(error);
      return;
    }

    const pump = (): void => {
      reader.read().then(
        ({ done, value }) => {
          if (subscriber.closed) return;
          if (done || value.type === 'error' || value.type === 'abort') finished = true;
          if (done) {
            subscriber.complete();
          } else if (value.type === 'error') {
            subscriber.error(value.error);
          } else if (value.type === 'abort') {
            subscriber.error(abortReason());
          } else {
            subscriber.next(value);
            pump();
          }
        },
        (error: unknown) => {
          finished = true;
          if (!subscriber.closed) subscriber.error(controller.signal.aborted ? abortReason() : error);
        },
      );
    };
    pump();

    return () => {
      outer?.removeEventListener('abort', onOuterAbort);
      if (finished) return;
      controller.abort();
      reader.cancel().catch(() => undefined);
    };
  });
}
