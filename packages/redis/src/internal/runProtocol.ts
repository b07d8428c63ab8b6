import { SerializedErrorSchema } from '@rxagents/core';
import { z } from 'zod';

/** The version of a run entry: an engine dead-letters entries of another version. */
export const RUN_PROTOCOL_VERSION = 1;

const name = z.string().min(1);

/** A choreography event on the wire. */
export const WireEventSchema = z.strictObject({
  name,
  output: z.string().optional(),
  input: z.string().optional(),
  interactionId: name.optional(),
  agentId: name.optional(),
});

const stepFields = { interactionId: name, agentId: name, input: z.string(), startedAt: z.number(), durationMs: z.number() };

/** A step on the wire: its error serialised (an error instance cannot cross processes). */
export const WireStepSchema = z.discriminatedUnion('success', [
  z.strictObject({ ...stepFields, success: z.literal(true), output: z.string() }),
  z.strictObject({ ...stepFields, success: z.literal(false), error: SerializedErrorSchema }),
]);
export type WireStep = z.infer<typeof WireStepSchema>;

/** One entry of a run's stream (field `entry`, JSON). `by` names the engine that wrote it. */
export const RunEntrySchema = z.discriminatedUnion('kind', [
  z.strictObject({ v: z.literal(RUN_PROTOCOL_VERSION), kind: z.literal('event'), by: z.string(), event: WireEventSchema }),
  z.strictObject({ v: z.literal(RUN_PROTOCOL_VERSION), kind: z.literal('step'), by: z.string(), eventId: z.string(), step: WireStepSchema, emitted: WireEventSchema.optional() }),
  z.strictObject({ v: z.literal(RUN_PROTOCOL_VERSION), kind: z.literal('timed-out'), by: z.string() }),
]);
export type RunEntry = z.infer<typeof RunEntrySchema>;
