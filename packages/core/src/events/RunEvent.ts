import * as z from 'zod';
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../internal/jsonDepth';
import { SerializedErrorSchema } from './SerializedError';

// Every event starts with the same five fields, in the same order (one hidden class per event type).
const base = {
  runId: z.string().min(1),
  callId: z.string().min(1),
  parentCallId: z.string().min(1).nullable(),
  at: z.number(),
};
const count = z.number().int().nonnegative();
const span = z.number().nonnegative();

const RunStartSchema = z.strictObject({ type: z.literal('run-start'), ...base, name: z.string(), input: z.string(), inputOmitted: z.literal(true).optional() });
const RunEndSchema = z.strictObject({
  type: z.literal('run-end'),
  ...base,
  success: z.boolean(),
  output: z.string().optional(),
  outputOmitted: z.literal(true).optional(),
  error: SerializedErrorSchema.optional(),
  durationMs: span,
});
const CallStartSchema = z.strictObject({ type: z.literal('call-start'), ...base, agentId: z.string(), input: z.string(), inputOmitted: z.literal(true).optional() });
const TextDeltaSchema = z.strictObject({ type: z.literal('text-delta'), ...base, agentId: z.string(), delta: z.string() });
const CallEndSchema = z.strictObject({ type: z.literal('call-end'), ...base, agentId: z.string(), durationMs: span });
const CallErrorSchema = z.strictObject({ type: z.literal('call-error'), ...base, agentId: z.string(), error: SerializedErrorSchema, durationMs: span });
const HandoffSchema = z.strictObject({ type: z.literal('handoff'), ...base, from: z.string(), to: z.string(), taskId: z.string() });
const ChoreographyEventSchema = z.strictObject({ type: z.literal('choreography-event'), ...base, name: z.string(), source: z.string().nullable() });
const StepSchema = z.strictObject({
  type: z.literal('step'),
  ...base,
  interactionId: z.string(),
  agentId: z.string(),
  success: z.boolean(),
  error: SerializedErrorSchema.optional(),
  durationMs: span,
});
const MessageSchema = z.strictObject({ type: z.literal('message'), ...base, speaker: z.string(), content: z.string(), contentOmitted: z.literal(true).optional() });
const RoundEndSchema = z.strictObject({ type: z.literal('round-end'), ...base, round: count });
const TerminationSchema = z.strictObject({ type: z.literal('termination'), ...base, decision: z.string(), reason: z.string() });
const UsageSchema = z.strictObject({
  type: z.literal('usage'),
  ...base,
  agentId: z.string(),
  inputTokens: count.optional(),
  outputTokens: count.optional(),
  totalTokens: count.optional(),
});
const MetricsSchema = z.strictObject({
  type: z.literal('metrics'),
  ...base,
  source: z.string(),
  metrics: z.record(z.string(), z.union([z.number(), z.boolean(), z.string()])),
});
// Checked for depth before zod's recursive JSON check, which a deeply nested value would overflow.
const customData = z.preprocess((value, context) => {
  if (nestsDeeperThan(value, MAX_JSON_DEPTH)) context.addIssue({ code: 'custom', message: `must nest at most ${MAX_JSON_DEPTH} levels deep` });
  return value;
}, z.json());
const CustomSchema = z.strictObject({ type: z.literal('custom'), ...base, name: z.string().min(1), data: customData });
const interruptId = z.string().min(1);
const InterruptSchema = z.strictObject({
  type: z.literal('interrupt'),
  ...base,
  interruptId,
  kind: z.enum(['input', 'approval']),
  question: z.string(),
  schema: customData,
  action: z.string().min(1).optional(),
  args: customData.optional(),
});
const InterruptEndSchema = z.strictObject({
  type: z.literal('interrupt-end'),
  ...base,
  interruptId,
  answered: z.boolean(),
  answer: customData.optional(),
  error: SerializedErrorSchema.optional(),
  durationMs: span,
});

/**
 * The zod schema of a {@link RunEvent}: validate events read from a socket, a stream entry or a request
 * body with it before use.
 *
 * @remarks
 * A discriminated union on `type`, every member strict (an unknown field is an error, so a typo or a
 * newer producer shows instead of being ignored). `custom` events carry any JSON value as `data`, its
 * arrays and objects nested at most 100 levels deep, so no input can make the check itself fail.
 *
 * @example
 * ```ts
 * import { RunEventSchema } from '@rxagents/core';
 *
 * const wire = '{"type":"text-delta","runId":"r1","callId":"c1","parentCallId":null,"at":5,"agentId":"writer","delta":"Once "}';
 * const event = RunEventSchema.parse(JSON.parse(wire));
 * if (event.type === 'text-delta') console.log(event.delta); // Once
 * ```
 */
export const RunEventSchema = z.discriminatedUnion('type', [
  RunStartSchema,
  RunEndSchema,
  CallStartSchema,
  TextDeltaSchema,
  CallEndSchema,
  CallErrorSchema,
  HandoffSchema,
  ChoreographyEventSchema,
  StepSchema,
  MessageSchema,
  RoundEndSchema,
  TerminationSchema,
  UsageSchema,
  MetricsSchema,
  CustomSchema,
  InterruptSchema,
  InterruptEndSchema,
]);

/**
 * Everything a run can say, as one typed union on `type`: plain, JSON-serialisable data.
 *
 * @remarks
 * Every event carries `runId` (the same for the whole tree of a run), `callId` (the node it belongs to),
 * `parentCallId` (the node it nests under; `null` at the root) and `at` (a time in ms from the run's
 * scheduler). A nested run (a pattern inside an agent that a handoff called) is a `run-start` whose
 * `parentCallId` is the agent call's id, so the events of any depth form one tree.
 *
 * | `type` | said when | its own fields |
 * |---|---|---|
 * | `run-start` / `run-end` | a run or a nested run starts / ends | `name`, `input` / `success`, `output?`, `error?`, `durationMs` |
 * | `call-start` | an agent is called | `agentId`, `input` |
 * | `text-delta` | the agent emitted a chunk | `agentId`, `delta` |
 * | `call-end` / `call-error` | the call completed / failed or was cancelled | `agentId`, `durationMs` / `agentId`, `error`, `durationMs` |
 * | `handoff` | a task was handed from one agent to another | `from`, `to`, `taskId` |
 * | `choreography-event` / `step` | a choreography event was published / an interaction ran | `name`, `source` / `interactionId`, `agentId`, `success`, `error?`, `durationMs` |
 * | `message` / `round-end` / `termination` | a pattern posted a message / ended a round / decided to stop | `speaker`, `content`, `contentOmitted?` / `round` / `decision`, `reason` |
 * | `usage` | a model reported tokens | `agentId`, `inputTokens?`, `outputTokens?`, `totalTokens?` |
 * | `metrics` | a channel (or another component) sampled its metrics | `source`, `metrics` |
 * | `custom` | your own code said something | `name`, `data` (any JSON value) |
 * | `interrupt` / `interrupt-end` | the run asks a person for input or an approval / the question closed | `interruptId`, `kind`, `question`, `schema`, `action?`, `args?` / `interruptId`, `answered`, `answer?`, `error?`, `durationMs` |
 *
 * A call's text is its `text-delta`s in order; `call-end` does not repeat it, so a long reply is carried
 * once. A delta holds at most `MAX_DELTA_LENGTH` characters (a longer chunk is said as several), and
 * an event repeats a text (`run-end`'s `output`, a start's `input`, a message's `content`) only up to
 * `MAX_TEXT_FIELD_LENGTH` characters as JSON: past that it says `outputOmitted`, `inputOmitted` or
 * `contentOmitted: true` instead, and the text is in the deltas of the calls that wrote it. Errors travel as {@link SerializedError}: name, message, code, retryable. A call or a nested run that
 * was cancelled (its caller unsubscribed) ends with an error named `AbortError`, as a cancelled `fetch` does.
 *
 * @example
 * ```ts
 * import type { RunEvent } from '@rxagents/core';
 *
 * function show(event: RunEvent): string {
 *   switch (event.type) {
 *     case 'text-delta':
 *       return `${event.agentId}: ${event.delta}`;
 *     case 'call-error':
 *       return `${event.agentId} failed: ${event.error.message}`;
 *     default:
 *       return event.type;
 *   }
 * }
 * console.log(show({ type: 'text-delta', runId: 'r', callId: 'c', parentCallId: null, at: 0, agentId: 'writer', delta: 'Hi' }));
 * ```
 */
export type RunEvent = z.infer<typeof RunEventSchema>;

/**
 * The `type` of a {@link RunEvent}.
 *
 * @example
 * ```ts
 * import type { RunEventType } from '@rxagents/core';
 *
 * const interesting: readonly RunEventType[] = ['call-start', 'call-end', 'handoff'];
 * console.log(interesting.length); // 3
 * ```
 */
export type RunEventType = RunEvent['type'];

/**
 * The member of {@link RunEvent} whose `type` is `K`.
 *
 * @example
 * ```ts
 * import type { RunEventOf } from '@rxagents/core';
 *
 * const delta: RunEventOf<'text-delta'> = { type: 'text-delta', runId: 'r', callId: 'c', parentCallId: null, at: 0, agentId: 'a', delta: 'x' };
 * console.log(delta.delta); // x
 * ```
 */
export type RunEventOf<K extends RunEventType> = Extract<RunEvent, { type: K }>;
