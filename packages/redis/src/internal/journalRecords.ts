import { type RunRecord, RunEventSchema } from '@rxagents/core';
import { z } from 'zod';
import { MalformedRunEntryError } from '../errors/MalformedRunEntryError';
import { entryIdOf } from './runStoreKeys';

/** One journal entry as `XRANGE` returns it: its id, and its one field `event` holding the event's JSON. */
const JournalEntrySchema = z.tuple([z.string(), z.tuple([z.literal('event'), z.string()])]);
/** An `XRANGE` reply. */
const JournalPageSchema = z.array(z.unknown());

/**
 * The records of one page of a run's journal stream, the first of which must be the record of
 * `fromSeq`: every entry checked (its id is its record's place, its one field a run event's JSON that
 * `RunEventSchema` accepts) before any is used.
 *
 * @throws `MalformedRunEntryError` naming the first entry that is not a record the store wrote.
 */
export function journalRecords(runId: string, fromSeq: number, reply: unknown): RunRecord[] {
  const page = JournalPageSchema.safeParse(reply);
  if (!page.success) throw new MalformedRunEntryError('read', runId, entryIdOf(fromSeq), 'the stream reply is not a list of entries');
  return page.data.map((raw, index) => {
    const seq = fromSeq + index;
    const entry = JournalEntrySchema.safeParse(raw);
    const entryId = Array.isArray(raw) && typeof raw[0] === 'string' ? raw[0] : entryIdOf(seq);
    if (!entry.success) throw new MalformedRunEntryError('read', runId, entryId, 'it must have one field, event');
    if (entryId !== entryIdOf(seq)) throw new MalformedRunEntryError('read', runId, entryId, `the record of seq ${seq} must have the id ${entryIdOf(seq)} (an entry was added or removed by someone else)`);
    let json: unknown;
    try {
      json = JSON.parse(entry.data[1][1]);
    } catch {
      throw new MalformedRunEntryError('read', runId, entryId, 'its event is not JSON');
    }
    const event = RunEventSchema.safeParse(json);
    if (!event.success) {
      const issue = event.error.issues[0];
      throw new MalformedRunEntryError('read', runId, entryId, `not a run event: ${issue?.path.join('.') || 'the event'} ${issue?.message ?? 'is invalid'}`);
    }
    return { seq, event: event.data };
  });
}
