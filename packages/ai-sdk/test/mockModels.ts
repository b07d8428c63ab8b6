import { APICallError, type LanguageModelV3CallOptions, type LanguageModelV3StreamPart } from '@ai-sdk/provider';
import { MockLanguageModelV3, convertArrayToReadableStream } from 'ai/test';

/** Usage parts as a V3 provider reports them. */
export function usage(input: number, output: number): Extract<LanguageModelV3StreamPart, { type: 'finish' }>['usage'] {
  return {
    inputTokens: { total: input, noCache: input, cacheRead: 0, cacheWrite: 0 },
    outputTokens: { total: output, text: output, reasoning: 0 },
  };
}

/** The stream parts of a text answer made of `deltas`. */
export function textParts(deltas: readonly string[], tokens: { input: number; output: number } = { input: 10, output: 3 }): LanguageModelV3StreamPart[] {
  return [
    { type: 'stream-start', warnings: [] },
    { type: 'text-start', id: 't1' },
    ...deltas.map((delta): LanguageModelV3StreamPart => ({ type: 'text-delta', id: 't1', delta })),
    { type: 'text-end', id: 't1' },
    { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage: usage(tokens.input, tokens.output) },
  ];
}

/** A mock model that streams `parts` once per call. */
export function streamingModel(parts: readonly LanguageModelV3StreamPart[]): MockLanguageModelV3 {
  return new MockLanguageModelV3({
    doStream: async () => ({ stream: convertArrayToReadableStream([...parts]) }),
  });
}

/** A mock model whose call fails before streaming, as a provider's HTTP error does. */
export function failingModel(statusCode: number | undefined, message = `HTTP ${statusCode}`): MockLanguageModelV3 {
  return new MockLanguageModelV3({
    doStream: async () => {
      throw apiCallError(statusCode, message);
    },
  });
}

/** An `APICallError` as the SDK's HTTP providers raise it. */
export function apiCallError(statusCode: number | undefined, message = `HTTP ${statusCode}`): APICallError {
  return new APICallError({
    message,
    url: 'http://127.0.0.1/v1/chat/completions',
    requestBodyValues: {},
    ...(statusCode === undefined ? { isRetryable: true } : { statusCode }),
  });
}

/** A model whose stream the test drives part by part, and which records what it was called with. */
export interface ControlledModel {
  readonly model: MockLanguageModelV3;
  /** Pushes a part into the current call's stream. */
  push(part: LanguageModelV3StreamPart): void;
  /** Ends the current call's stream. */
  close(): void;
  /** Resolves with the call's options once the SDK called the model. */
  readonly called: Promise<LanguageModelV3CallOptions>;
}

export function controlledModel(): ControlledModel {
  let controller: ReadableStreamDefaultController<LanguageModelV3StreamPart> | undefined;
  let resolveCalled: (options: LanguageModelV3CallOptions) => void = () => undefined;
  const called = new Promise<LanguageModelV3CallOptions>((resolve) => {
    resolveCalled = resolve;
  });
  const model = new MockLanguageModelV3({
    doStream: async (options) => {
      const stream = new ReadableStream<LanguageModelV3StreamPart>({
        start: (c) => {
          controller = c;
        },
      });
      resolveCalled(options);
      return { stream };
    },
  });
  return {
    model,
    push: (part) => {
      try {
        controller?.enqueue(part);
      } catch {
        // The stream was already cancelled: a late part goes nowhere, which is what the tests check.
      }
    },
    close: () => {
      try {
        controller?.close();
      } catch {
        // Already closed or cancelled.
      }
    },
    called,
  };
}

/** Lets pending promise callbacks and stream reads run. */
export function settle(rounds = 10): Promise<void> {
  let chain = Promise.resolve();
  for (let index = 0; index < rounds; index += 1) chain = chain.then(() => new Promise<void>((resolve) => setImmediate(resolve)));
  return chain;
}
