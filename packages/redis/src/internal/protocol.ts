import { RunEventSchema, SerializedErrorSchema, TraceContextSchema } from '@rxagents/core';
import { z } from 'zod';

/** The wire format's version, in every call entry: a worker refuses (dead-letters) entries of another version. */
export const PROTOCOL_VERSION = 1;

const toolCallFields = { id: z.string(), name: z.string(), arguments: z.string() };
const messageFields = <C extends z.ZodType>(toolCall: C) => ({
  role: z.enum(['system', 'user', 'assistant', 'tool']),
  content: z.string(),
  name: z.string().optional(),
  toolCalls: z.array(toolCall).optional(),
  toolCallId: z.string().optional(),
});

/** A call's `context` as a worker reads it: messages with the `Message` fields only (strict). */
const WireContextSchema = z.array(z.strictObject(messageFields(z.strictObject(toolCallFields))));

/**
 * A call's `context` as a caller sends it: the same fields, anything else (a handoff message's id or
 * timestamp, which the worker's strict schema would refuse) dropped.
 */
export const CallerContextSchema = z.array(z.object(messageFields(z.object(toolCallFields))));

/** A call as a caller writes it to an agent's call stream (field `call`, JSON). */
export const CallEntrySchema = z.strictObject({
  v: z.literal(PROTOCOL_VERSION),
  callId: z.uuid(),
  agentId: z.string().min(1),
  input: z.string(),
  context: WireContextSchema.optional(),
  metadata: z.record(z.string(), z.json()).optional(),
  run: z.strictObject({ runId: z.string().min(1), callId: z.string().min(1), parentCallId: z.string().min(1).nullable() }).optional(),
  maxAttempts: z.number().int().positive(),
  /**
   * The caller's lease, in ms, stored just before the entry was added: an entry younger than half of it
   * (by its id, Redis's clock) has a live caller, so a worker starts it without looking at the lease.
   */
  leaseMs: z.number().int().positive().optional(),
  /** The W3C trace context of the caller's span for the call, when the caller traces its runs: the worker hands it to the agent as `ChatOptions.traceContext`. */
  trace: TraceContextSchema.optional(),
});
export type CallEntry = z.infer<typeof CallEntrySchema>;

/**
 * An answer to an interrupt of a call, as a caller writes it to the call's answers stream (field
 * `answer`, JSON): the worker running the call answers its interrupt `interruptId` with it.
 */
export const AnswerEntrySchema = z.strictObject({ interruptId: z.string().min(1), answer: z.json() });
export type AnswerEntry = z.infer<typeof AnswerEntrySchema>;

const attempt = z.number().int().positive();
// Numbers an attempt's entries from 0: a write that ioredis resent after a reconnect, and so may be stored
// twice, is recognised by its number.
const seq = z.number().int().nonnegative();

/**
 * One reply of a call's reply stream: what the worker running attempt `attempt` said, as its `seq`th
 * reply. A stream entry holds one reply (field `reply`, JSON) or, when the worker wrote several in one
 * turn of the event loop, a batch of them in order (field `replies`, a JSON array).
 */
const StartedReplySchema = z.strictObject({ kind: z.literal('started'), attempt, seq, worker: z.string() });
const ChunkReplySchema = z.strictObject({ kind: z.literal('chunk'), attempt, seq, text: z.string() });
const EndReplySchema = z.strictObject({ kind: z.literal('end'), attempt, seq });
export const ReplyEntrySchema = z.discriminatedUnion('kind', [
  StartedReplySchema,
  ChunkReplySchema,
  z.strictObject({ kind: z.literal('event'), attempt, seq, event: RunEventSchema }),
  EndReplySchema,
  z.strictObject({ kind: z.literal('error'), attempt, seq, error: SerializedErrorSchema, exhausted: z.boolean() }),
]);
export type ReplyEntry = z.infer<typeof ReplyEntrySchema>;

/** A stream entry as Redis returns it: `[id, [field, value, field, value, ...]]`. */
export const StreamEntrySchema = z.tuple([z.string(), z.array(z.string()).nullable()]);
const StreamEntriesSchema = z.array(StreamEntrySchema);
/**
 * An XREAD / XREADGROUP reply as the entries read, whatever the protocol: RESP2 gives `[[key, entries]]`,
 * RESP3 a map that ioredis flattens to `[key, entries]`; `null` when the block timed out.
 */
export const StreamReadSchema = z.union([
  z.null().transform(() => []),
  z.array(z.tuple([z.string(), StreamEntriesSchema])).transform((streams) => streams.flatMap(([, entries]) => entries)),
  z.tuple([z.string(), StreamEntriesSchema]).rest(z.union([z.string(), StreamEntriesSchema])).transform((flat) => flat.filter((item) => typeof item !== 'string').flat()),
]);
/**
 * The entries of an XREAD / XREADGROUP reply: a direct check of the usual one-stream shapes (`null`,
 * RESP2's `[[key, [[id, [field, value, ...]], ...]]]` or RESP3's `[key, [[id, [...]], ...]]`), which a
 * long read of many entries passes without a schema walk; any other shape goes through {@link StreamReadSchema}.
 */
export function streamEntries(raw: unknown): { ok: true; entries: ReadonlyArray<z.infer<typeof StreamEntrySchema>> } | { ok: false; error: z.ZodError } {
  if (raw === null) return { ok: true, entries: [] };
  if (Array.isArray(raw) && raw.length === 1) {
    const only: unknown = raw[0];
    if (Array.isArray(only) && only.length === 2 && typeof only[0] === 'string' && Array.isArray(only[1]) && only[1].every(isStreamEntry)) {
      return { ok: true, entries: only[1] as Array<[string, string[] | null]> };
    }
  }
  // RESP3 (ioredis's default protocol with Redis 6+): one stream's map flattened to `[key, entries]`.
  if (Array.isArray(raw) && raw.length === 2 && typeof raw[0] === 'string' && Array.isArray(raw[1]) && raw[1].every(isStreamEntry)) {
    return { ok: true, entries: raw[1] as Array<[string, string[] | null]> };
  }
  const read = StreamReadSchema.safeParse(raw);
  return read.success ? { ok: true, entries: read.data } : { ok: false, error: read.error };
}

function isStreamEntry(entry: unknown): boolean {
  if (!Array.isArray(entry) || entry.length !== 2 || typeof entry[0] !== 'string') return false;
  const fields: unknown = entry[1];
  return fields === null || (Array.isArray(fields) && fields.every((field) => typeof field === 'string'));
}

/**
 * The replies that make up a quick call's answer (`started`, `chunk`, `end`), checked by the compiled
 * form of their schemas (`z.compile`: the same checks, generated as plain code); any other reply, and
 * one that fails there, goes through {@link ReplyEntrySchema}, which words the reason.
 */
const QuickReplySchema = z.compile(z.discriminatedUnion('kind', [StartedReplySchema, ChunkReplySchema, EndReplySchema]));

/** Checks one parsed reply: the compiled quick path first, the full schema for anything else; the reason why not otherwise. */
function checkReply(json: unknown): { ok: true; value: ReplyEntry } | { ok: false; reason: string } {
  const quick = QuickReplySchema.safeParse(json);
  if (quick.success) return { ok: true, value: quick.data };
  const result = ReplyEntrySchema.safeParse(json);
  return result.success ? { ok: true, value: result.data } : { ok: false, reason: z.prettifyError(result.error).replace(/\n/g, '; ') };
}

/** The replies of a reply stream entry (its field `reply`, or its field `replies`), in order. */
export function parseReplies(fields: readonly string[] | null): { ok: true; value: readonly ReplyEntry[] } | { ok: false; reason: string } {
  const batch = fieldOf(fields, 'replies');
  if (batch === undefined) {
    const one = parseReply(fieldOf(fields, 'reply'));
    return one.ok ? { ok: true, value: [one.value] } : one;
  }
  let json: unknown;
  try {
    json = JSON.parse(batch);
  } catch (error) {
    return { ok: false, reason: `field "replies" is not JSON: ${error instanceof Error ? error.message : String(error)}` };
  }
  if (!Array.isArray(json) || json.length === 0) return { ok: false, reason: 'field "replies" is not a non-empty array' };
  const replies: ReplyEntry[] = [];
  for (let index = 0; index < json.length; index += 1) {
    const reply = checkReply(json[index]);
    if (!reply.ok) return { ok: false, reason: `field "replies" item ${index} fails the schema: ${reply.reason}` };
    replies.push(reply.value);
  }
  return { ok: true, value: replies };
}

/** Parses one reply's JSON (a stream entry's field `reply`). */
export function parseReply(raw: string | undefined): { ok: true; value: ReplyEntry } | { ok: false; reason: string } {
  if (raw === undefined) return { ok: false, reason: 'missing field "reply"' };
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch (error) {
    return { ok: false, reason: `field "reply" is not JSON: ${error instanceof Error ? error.message : String(error)}` };
  }
  const reply = checkReply(json);
  return reply.ok ? reply : { ok: false, reason: `field "reply" fails the schema: ${reply.reason}` };
}

/**
 * The call schema's checks in compiled form (`z.compile`), with `metadata` checked as a record only: its
 * values' JSON schema is recursive, which the compiler leaves to the runtime parser.
 */
const CompiledCallSchema = z.compile(CallEntrySchema.extend({ metadata: z.record(z.string(), z.unknown()).optional() }));
const MetadataSchema = CallEntrySchema.shape.metadata;

/**
 * Parses a call entry's field `call`: the compiled checks, then `metadata`'s values with their own
 * schema; a call failing either goes through {@link CallEntrySchema} as a whole, which words the reason.
 */
export function parseCall(raw: string | undefined): { ok: true; value: CallEntry } | { ok: false; reason: string } {
  if (raw !== undefined) {
    let json: unknown;
    try {
      json = JSON.parse(raw);
    } catch {
      json = undefined;
    }
    const call = CompiledCallSchema.safeParse(json);
    if (call.success && (call.data.metadata === undefined || MetadataSchema.safeParse(call.data.metadata).success)) return { ok: true, value: call.data as CallEntry };
  }
  return parseField(CallEntrySchema, raw, 'call');
}

const CallIdOnlySchema = z.looseObject({ callId: z.uuid() });

/**
 * The call id of a call entry that failed {@link CallEntrySchema} (another protocol version, a field of the
 * wrong type), when it is still there to read: its caller can then be told. `undefined` otherwise.
 */
export function readableCallId(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  try {
    const read = CallIdOnlySchema.safeParse(JSON.parse(raw));
    return read.success ? read.data.callId : undefined;
  } catch {
    return undefined;
  }
}

/** An XAUTOCLAIM reply: `[nextStart, entries, deletedIds]`. */
export const AutoClaimSchema = z.tuple([z.string(), z.array(StreamEntrySchema), z.array(z.string()).optional()]);

/** The value of `field` in a stream entry's flat field list, or `undefined`. */
export function fieldOf(fields: readonly string[] | null, field: string): string | undefined {
  if (fields === null) return undefined;
  for (let i = 0; i + 1 < fields.length; i += 2) if (fields[i] === field) return fields[i + 1];
  return undefined;
}

/** Parses a JSON field with `schema`; the reason why not otherwise. */
export function parseField<S extends z.ZodType>(
  schema: S,
  raw: string | undefined,
  field: string,
): { ok: true; value: z.output<S> } | { ok: false; reason: string } {
  if (raw === undefined) return { ok: false, reason: `missing field "${field}"` };
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch (error) {
    return { ok: false, reason: `field "${field}" is not JSON: ${error instanceof Error ? error.message : String(error)}` };
  }
  const result = schema.safeParse(json);
  if (result.success) return { ok: true, value: result.data };
  return { ok: false, reason: `field "${field}" fails the schema: ${z.prettifyError(result.error).replace(/\n/g, '; ')}` };
}
