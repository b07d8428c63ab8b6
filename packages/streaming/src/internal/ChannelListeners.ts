import { reportUnhandledError } from '@rxagents/core';
import { Subscription } from 'rxjs';

/**
 * The handlers registered on a channel: `onError`, `onComplete`, and the internal end-of-life handlers
 * (derived channels, `metrics$`).
 *
 * @remarks
 * A plain record made by {@link createListeners}, for the reason given at `RingBuffer`. Handler
 * lists are replaced, not mutated, when a handler is added or removed during a call to the others.
 *
 * @internal
 */
export interface ChannelListeners<T> {
  errorHandlers: ((error: unknown, item: T | undefined) => void)[];
  completeHandlers: (() => void)[];
  endHandlers: (() => void)[];
}

/** No handlers yet. @internal */
export function createListeners<T>(): ChannelListeners<T> {
  return { errorHandlers: [], completeHandlers: [], endHandlers: [] };
}

/** Registers a handler for subscriber failures; unsubscribe to remove it. @internal */
export function addErrorHandler<T>(listeners: ChannelListeners<T>, handler: (error: unknown, item: T | undefined) => void): Subscription {
  listeners.errorHandlers = [...listeners.errorHandlers, handler];
  return new Subscription(() => (listeners.errorHandlers = listeners.errorHandlers.filter((h) => h !== handler)));
}

/** Registers a handler for the channel's completion; unsubscribe to remove it. @internal */
export function addCompleteHandler<T>(listeners: ChannelListeners<T>, handler: () => void): Subscription {
  listeners.completeHandlers = [...listeners.completeHandlers, handler];
  return new Subscription(() => (listeners.completeHandlers = listeners.completeHandlers.filter((h) => h !== handler)));
}

/** Registers a handler for the channel's end (completed or closed); returns what removes it. @internal */
export function addEndHandler<T>(listeners: ChannelListeners<T>, handler: () => void): () => void {
  listeners.endHandlers.push(handler);
  return () => {
    const index = listeners.endHandlers.indexOf(handler);
    if (index >= 0) listeners.endHandlers.splice(index, 1);
  };
}

/** Hands a subscriber failure to the error handlers, or reports it as unhandled when there is none. @internal */
export function reportError<T>(listeners: ChannelListeners<T>, error: unknown, item: T | undefined): void {
  const handlers = listeners.errorHandlers;
  if (handlers.length === 0) {
    reportUnhandledError(error);
    return;
  }
  for (const handler of handlers) {
    try {
      handler(error, item);
    } catch (handlerError) {
      reportUnhandledError(handlerError);
    }
  }
}

/** Runs `handler`; what it throws goes to the error handlers, so it cannot break the dispatcher. @internal */
export function safely<T>(listeners: ChannelListeners<T>, handler: () => void): void {
  try {
    handler();
  } catch (error) {
    reportError(listeners, error, undefined);
  }
}

/** Runs the complete handlers once (they are removed). @internal */
export function runCompleteHandlers<T>(listeners: ChannelListeners<T>): void {
  const handlers = listeners.completeHandlers;
  listeners.completeHandlers = [];
  for (const handler of handlers) safely(listeners, handler);
}

/** Runs the end handlers once (they are removed). @internal */
export function runEndHandlers<T>(listeners: ChannelListeners<T>): void {
  const handlers = listeners.endHandlers;
  listeners.endHandlers = [];
  for (const handler of handlers) safely(listeners, handler);
}
