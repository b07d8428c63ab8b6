import { RunJournalCorruptError } from '../../errors/RunJournalCorruptError';
import { RunJournalVersionError } from '../../errors/RunJournalVersionError';
import type { RunEvent } from '../../events/RunEvent';
import { safeParseRunEvent } from '../../events/safeParseRunEvent';
import type { RunStatus } from '../RunStore';

// A journal file is JSON lines. The first is the version line:
//   {"rxagentsJournal":1,"runId":"r1","name":"story","createdAt":0}
// then one line per record, `{"seq":0,"event":{...}}`. The last line of every append also says when it
// was appended and the run's status after it: `{"seq":3,"event":{...},"appendedAt":17,"status":"running"}`.
// That line commits its append: lines after the last commit line are an append a crash cut short.

/** The journal format version this store reads and writes. */
export const JOURNAL_VERSION = 1;

/** What a journal's version line says. */
export interface JournalHeader {
  readonly runId: string;
  readonly name: string;
  readonly createdAt: number;
}

/** The version line of a new journal, with its newline. */
export function headerLine(header: JournalHeader): string {
  return `${JSON.stringify({ rxagentsJournal: JOURNAL_VERSION, runId: header.runId, name: header.name, createdAt: header.createdAt })}\n`;
}

/** A record line, with its newline; `commit` on the last line of an append. */
export function recordLine(seq: number, event: RunEvent, commit?: { readonly appendedAt: number; readonly status: RunStatus }): string {
  const line = commit === undefined ? { seq, event } : { seq, event, appendedAt: commit.appendedAt, status: commit.status };
  return `${JSON.stringify(line)}\n`;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Reads a version line, or throws `RunJournalVersionError` (no or another version) or `RunJournalCorruptError`. */
export function parseHeader(text: string, file: string): JournalHeader {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new RunJournalVersionError(file, undefined, JOURNAL_VERSION);
  }
  const version = isObject(value) && Object.hasOwn(value, 'rxagentsJournal') ? value['rxagentsJournal'] : undefined;
  if (version !== JOURNAL_VERSION) throw new RunJournalVersionError(file, version, JOURNAL_VERSION);
  const { runId, name, createdAt } = value as Record<string, unknown>;
  if (typeof runId !== 'string' || typeof name !== 'string' || typeof createdAt !== 'number' || !Number.isFinite(createdAt)) {
    throw new RunJournalCorruptError(file, 1, 'the version line must name the run (runId, name, createdAt)');
  }
  return { runId, name, createdAt };
}

/** A record line read back: the record, and its commit when it is the last line of an append. */
export type ParsedLine =
  | { readonly ok: true; readonly seq: number; readonly event: RunEvent; readonly commit: { readonly appendedAt: number; readonly status: RunStatus } | undefined }
  | { readonly ok: false; readonly reason: string };

const STATUSES = new Set<unknown>(['running', 'succeeded', 'failed']);
const RECORD_KEYS = new Set(['seq', 'event', 'appendedAt', 'status']);

/** Reads a record line, checking its seq (when `expectedSeq` is given) and its event against `RunEventSchema`'s rules. */
export function parseRecordLine(text: string, expectedSeq?: number): ParsedLine {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, reason: 'is not JSON' };
  }
  if (!isObject(value)) return { ok: false, reason: 'is not a record object' };
  for (const key of Object.keys(value)) if (!RECORD_KEYS.has(key)) return { ok: false, reason: `has an unknown field ${JSON.stringify(key)}` };
  const { seq, event, appendedAt, status } = value;
  if (!Number.isSafeInteger(seq) || (seq as number) < 0) return { ok: false, reason: 'has no valid seq' };
  if (expectedSeq !== undefined && seq !== expectedSeq) return { ok: false, reason: `has seq ${String(seq)} where ${expectedSeq} was expected` };
  const checked = safeParseRunEvent(event);
  if (!checked.success) {
    const issue = checked.error.issues[0];
    return { ok: false, reason: `holds an invalid event: ${['event', ...(issue?.path ?? [])].map(String).join('.')} ${issue?.message ?? ''}`.trim() };
  }
  if (appendedAt === undefined && status === undefined) return { ok: true, seq: seq as number, event: checked.data, commit: undefined };
  if (typeof appendedAt !== 'number' || !Number.isFinite(appendedAt) || !STATUSES.has(status)) return { ok: false, reason: 'has an invalid appendedAt or status' };
  return { ok: true, seq: seq as number, event: checked.data, commit: { appendedAt, status: status as RunStatus } };
}
