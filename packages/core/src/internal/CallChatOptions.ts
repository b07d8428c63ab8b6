import type { ChatOptions } from '../Agent';
import type { RunContext } from '../events/RunContext';
import type { Message } from '../Message';
import type { LazyAbort } from './LazyAbort';

/**
 * What the agent gets as `ChatOptions`. The signal is an own, enumerable getter, so `{ ...options }` in a
 * wrapping agent still carries it. One getter shared by every call (reading a private field) rather than an
 * object literal's: a literal's getter is a new closure, so each call's options got a map of their own,
 * about 0.5 µs per call (`pnpm bench handoff`).
 */
export class CallChatOptions implements ChatOptions {
  readonly #controller: LazyAbort;
  declare readonly signal: AbortSignal;
  // Declared, not defined: a key is there only when the call has that option (as with an object literal).
  declare context?: readonly Message[];
  declare metadata?: Readonly<Record<string, unknown>>;
  declare run?: RunContext;
  declare idempotencyKey?: string;

  constructor(
    controller: LazyAbort,
    context: readonly Message[] | undefined,
    metadata: Readonly<Record<string, unknown>> | undefined,
    run: RunContext | undefined,
    idempotencyKey?: string,
  ) {
    this.#controller = controller;
    Object.defineProperty(this, 'signal', SIGNAL_PROPERTY);
    if (context !== undefined) this.context = context;
    if (metadata !== undefined) this.metadata = metadata;
    if (run !== undefined) this.run = run;
    if (idempotencyKey !== undefined) this.idempotencyKey = idempotencyKey;
  }

  static signalOf(options: CallChatOptions): AbortSignal {
    return options.#controller.signal;
  }
}

const SIGNAL_PROPERTY: PropertyDescriptor = {
  get(this: CallChatOptions): AbortSignal {
    return CallChatOptions.signalOf(this);
  },
  enumerable: true,
  configurable: true,
};
