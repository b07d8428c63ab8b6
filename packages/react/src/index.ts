/**
 * `@rxagents/react`: a live rxagents run in a React component, its questions to a person, and answers.
 *
 * @packageDocumentation
 */
export type { RunSource } from './RunSource';
export type { RunViewState, RunViewStatus } from './RunViewState';
export { RunViewOptionsSchema, type RunViewOptions } from './RunViewOptions';
export { createRunViewStore, type RunViewStore } from './createRunViewStore';
export { useRunView } from './useRunView';
export { openInterrupts } from './openInterrupts';
export { usePendingInterrupts } from './usePendingInterrupts';
export type { PendingInterruptsState } from './PendingInterruptsState';
export { postAnswer, type PostAnswerResult } from './postAnswer';
export { PostAnswerOptionsSchema, type PostAnswerOptions } from './PostAnswerOptions';
export { AnswerNotSentError } from './errors/AnswerNotSentError';
