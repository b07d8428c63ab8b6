import { ConfigError, configRules, parseConfig, type RunEvent, RunStoreError, type RunSummary, safeParseRunEvent } from '@rxagents/core';
import { z } from 'zod';

const SUBJECT = 'RedisRunStore';

/** `reply` as `schema` reads it; a `RunStoreError` of `operation` when Redis answered something else. */
export function replyAs<S extends z.ZodType>(schema: S, reply: unknown, operation: string, runId: string | undefined): z.output<S> {
  const parsed = schema.safeParse(reply);
  if (parsed.success) return parsed.data;
  throw new RunStoreError(operation, runId, new Error(`Redis answered ${JSON.stringify(reply)}, which is not a reply of the store's script`));
}

/** A count or a time in ms as a Redis hash holds it. */
const count = z.string().regex(/^\d+$/).transform(Number);
/** The summary hash's fields as `HMGET` returns them. */
const SummaryFieldsSchema = z.tuple([z.string(), z.enum(['running', 'succeeded', 'failed']), count, count, count]);
/** The fields `HMGET` reads from a summary, in the order {@link summaryOf} takes them. */
export const SUMMARY_FIELDS = ['name', 'status', 'records', 'createdAt', 'updatedAt'] as const;

/** The run's summary from its `HMGET` reply; undefined when the run does not exist. */
export function summaryOf(runId: string, fields: readonly (string | null)[], operation: string): RunSummary | undefined {
  if (fields.every((field) => field === null)) return undefined;
  const parsed = SummaryFieldsSchema.safeParse(fields);
  if (!parsed.success) throw new RunStoreError(operation, runId, new Error(`its summary hash is malformed: ${JSON.stringify(fields)}`));
  const [name, status, records, createdAt, updatedAt] = parsed.data;
  return { runId, name, status, records, createdAt, updatedAt };
}

export function checkRunId(runId: unknown, operation: string, path = 'runId'): string {
  const parsed = configRules.id().safeParse(runId);
  if (!parsed.success) throw new ConfigError(`${SUBJECT}.${operation}`, [{ path, rule: 'must be a non-blank string', received: runId }]);
  return parsed.data;
}

export function checkSeq(fromSeq: unknown): number {
  if (!Number.isInteger(fromSeq) || (fromSeq as number) < 0) throw new ConfigError(`${SUBJECT}.read`, [{ path: 'fromSeq', rule: 'must be a non-negative integer', received: fromSeq }]);
  return fromSeq as number;
}

/** A lease ttl as a `PX` argument: whole ms, or '' for a lease that never lapses (`Infinity`). */
export function ttlArgument(ttlMs: unknown, operation: string): string {
  const ttl = parseConfig(configRules.timeoutMs(), ttlMs, `${SUBJECT}.${operation} ttlMs`);
  return ttl === Infinity ? '' : String(Math.ceil(ttl));
}

/** A delay as a `PEXPIRE` argument: whole ms, or '' for never (`Infinity`). */
export function delayArgument(afterMs: unknown, operation: string): string {
  const delay = parseConfig(configRules.delayMs(), afterMs, `${SUBJECT}.${operation} afterMs`);
  return delay === Infinity ? '' : String(Math.ceil(delay));
}

/** `events` as a list of run events; a `ConfigError` naming the first one that is not. */
export function checkEvents(events: unknown): readonly RunEvent[] {
  if (!Array.isArray(events)) throw new ConfigError(`${SUBJECT}.append`, [{ path: 'events', rule: 'must be an array of run events', received: events }]);
  events.forEach((event: unknown, index) => {
    const checked = safeParseRunEvent(event);
    if (!checked.success) {
      const issue = checked.error.issues[0];
      const path = ['events', index, ...(issue?.path ?? [])].map((part) => (typeof part === 'number' ? `[${part}]` : `.${String(part)}`)).join('').replace(/^\./, '');
      throw new ConfigError(`${SUBJECT}.append`, [{ path, rule: issue?.message ?? 'must be a run event', received: event }]);
    }
  });
  return events as readonly RunEvent[];
}

/** The run status the root's last `run-end` among `events` sets, or '' when there is none. */
export function endStatusOf(events: readonly RunEvent[]): '' | 'succeeded' | 'failed' {
  let status: '' | 'succeeded' | 'failed' = '';
  for (const event of events) if (event.type === 'run-end' && event.parentCallId === null) status = event.success ? 'succeeded' : 'failed';
  return status;
}
