export type { Agent, AgentMessage, ChatOptions } from './Agent';
export type { Message, MessageRole, ToolCall } from './Message';
export { TraceContextSchema, type TraceContext } from './TraceContext';
export { defineAgent, type AgentDefinition } from './defineAgent';
export { stream, type AgentCallOptions } from './stream';
export { invoke, invoke$, type InvokeOptions } from './invoke';
export { callAgent } from './callAgent';
export type { AgentCallResult, AgentCallSuccess, AgentCallFailure } from './AgentCallResult';
export { lastValue, type LastValueOptions } from './lastValue';
export { parseConfig } from './parseConfig';
/**
 * Reusable zod rules whose messages read well in a {@link ConfigError}.
 *
 * @remarks
 * Each function returns a fresh schema with a `must ...` message, so a failure reads
 * `bufferSize must be a positive integer, got -1`. Packages build their options schemas from these.
 *
 * @example
 * ```ts
 * import { z } from 'zod';
 * import { configRules } from '@rxagents/core';
 *
 * const Options = z.strictObject({
 *   bufferSize: configRules.positiveInt().default(256),
 *   scheduler: configRules.scheduler().optional(),
 * });
 * console.log(Options.parse({}).bufferSize); // 256
 * ```
 */
export * as configRules from './configRules';
export { MAX_COUNT, MAX_DELAY_MS, MAX_DELTA_LENGTH, MAX_TEXT_FIELD_LENGTH } from './limits';
export { delayTimer, scheduleDelay } from './delay';
export { unfoldSteps, type Unfolded } from './unfoldSteps';
export { fromAbortSignal } from './fromAbortSignal';
export { CoordinationError, type CoordinationErrorOptions } from './errors/CoordinationError';
export { ConfigError, type ConfigIssue } from './errors/ConfigError';
export { preview } from './preview';
export { reportUnhandledError } from './reportUnhandledError';
export { AgentError, type AgentErrorOptions } from './errors/AgentError';
export { AgentTimeoutError } from './errors/AgentTimeoutError';
export { RunEventSchema, type RunEvent, type RunEventType, type RunEventOf } from './events/RunEvent';
export { serializeError, SerializedErrorSchema, type SerializedError } from './events/SerializedError';
export { safeParseRunEvent, type RunEventCheck } from './events/safeParseRunEvent';
export { isSerializedError } from './events/isSerializedError';
export type { RunContext } from './events/RunContext';
export type { RunJournal } from './events/RunJournal';
export { namedPlace } from './events/namedPlace';
export type { RunOutcome } from './events/RunOutcome';
export { newRunId } from './events/ids';
export { traceRun } from './events/traceRun';
export { traceResult } from './events/traceResult';
export { observeRun, type ObserveRunOptions, type RunEventsOptions } from './events/observeRun';
export { emitCustom } from './events/emitCustom';
export { runView, reduceRunView, emptyRunView, type RunView, type RunNode, type RunNodeStatus, type RunUsage } from './events/runView';
export { withoutSupersededAttempts } from './events/withoutSupersededAttempts';
export { runEventStream, type RunEventStreamOptions } from './events/runEventStream';
export { DeliveryBuffer, type RunDelivery } from './events/DeliveryBuffer';
export { emitUsage, type UsageReport } from './events/emitUsage';
export { whenRoom } from './events/whenRoom';
export { OpenRunNodes } from './events/OpenRunNodes';
export { takeRunUntil, type TakeRunUntilOptions } from './events/takeRunUntil';
export type { RunStore, RunRecord, RunSummary, RunStatus, RunLease, RunLeaseHolder, RunLeaseOptions, RunListOptions } from './store/RunStore';
export { RunLeaseOptionsSchema } from './store/RunLeaseOptionsSchema';
export { MemoryRunStore, MemoryRunStoreOptionsSchema, type MemoryRunStoreOptions } from './store/MemoryRunStore';
export { RunLeasedError, type RunLeasedDetails } from './errors/RunLeasedError';
export { RunLeaseLostError } from './errors/RunLeaseLostError';
export { RunStoreError } from './errors/RunStoreError';
export { RunJournalVersionError } from './errors/RunJournalVersionError';
export { RunJournalCorruptError } from './errors/RunJournalCorruptError';
export { RunDivergenceError } from './errors/RunDivergenceError';
export { CallInterruptedError } from './errors/CallInterruptedError';
export { askForInput, type AskForInputOptions } from './interrupts/askForInput';
export { askForApproval, ApprovalDecisionSchema, type ApprovalDecision, type AskForApprovalOptions } from './interrupts/askForApproval';
export { answerInterrupt } from './interrupts/answerInterrupt';
export { pendingInterrupts, pendingInterrupts$ } from './interrupts/pendingInterrupts';
export { relayInterrupt } from './interrupts/relayInterrupt';
export { InterruptNotFoundError } from './errors/InterruptNotFoundError';
export { InterruptAnswerError, type InterruptAnswerIssue } from './errors/InterruptAnswerError';
export { InterruptTimeoutError } from './errors/InterruptTimeoutError';
