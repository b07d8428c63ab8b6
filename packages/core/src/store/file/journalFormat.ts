import { crc32 } from 'node:zlib';
import { RunJournalCorruptError } from '../../errors/RunJournalCorruptError';
import { RunJournalVersionError } from '../../errors/RunJournalVersionError';
import type { RunEvent } from '../../events/RunEvent';
import type { RunStatus } from '../RunStore';

// A journal file is JSON lines. The first is the version line, `{"rxagentsJournal":2,"runId":"r1"}`.
// Then appends, each written as one piece in append mode: a newline (so that an append never runs on
// from the unfinished last line a failed write may have left), then one line per record,
//   {"seq":0,"epoch":1,"event":{...}}
// the last of which commits the append: it also says when it was appended, the run's status after it,
// and the CRC-32 of the append's bytes (its leading newline, its lines, this line up to `,"crc"`):
//   {"seq":3,"epoch":1,"event":{...},"appendedAt":17,"status":"running","crc":"0a1b2c3d"}
// A fence is a one-line append written when a lease is taken: `{"fence":2,"at":17,"crc":"..."}`. Records
// of an older epoch after it were written by a process that lost its lease: readers skip them.

/** The journal format version this store reads and writes. */
export const JOURNAL_VERSION = 2;

/** What a journal's version line says. */
export interface JournalHeader {
  readonly runId: string;
}

/** The status and time of an append, on its commit line. */
export interface Commit {
  readonly appendedAt: number;
  readonly status: RunStatus;
}

/** The end of every commit and fence line: `,"crc":"0a1b2c3d"}`, ASCII, so as long in bytes as in characters. */
const CRC_SUFFIX = ',"crc":"00000000"}';
export const CRC_SUFFIX_BYTES = CRC_SUFFIX.length;

/** The CRC-32 an append's bytes start from: the one of its leading newline. */
export const APPEND_SEED = crc32('\n');

/** The version line of a new journal, with its newline. */
export function headerLine(header: JournalHeader): string {
  return `${JSON.stringify({ rxagentsJournal: JOURNAL_VERSION, runId: header.runId })}\n`;
}

/** The bytes of one append of `events` (at least one) numbered from `firstSeq`, written by the holder of `epoch`. */
export function appendBytes(firstSeq: number, epoch: number, events: readonly RunEvent[], commit: Commit): Buffer {
  let text = '\n';
  const last = events.length - 1;
  for (let index = 0; index < last; index++) text += `{"seq":${firstSeq + index},"epoch":${epoch},"event":${JSON.stringify(events[index])}}\n`;
  text += `{"seq":${firstSeq + last},"epoch":${epoch},"event":${JSON.stringify(events[last])},"appendedAt":${JSON.stringify(commit.appendedAt)},"status":"${commit.status}"`;
  return sealed(text);
}

/** The bytes of the fence a new lease of `epoch` writes at `at`. */
export function fenceBytes(epoch: number, at: number): Buffer {
  return sealed(`\n{"fence":${epoch},"at":${JSON.stringify(at)}`);
}

/** `text` and its CRC suffix and newline, the CRC taken over every byte before the suffix. */
function sealed(text: string): Buffer {
  const bytes = Buffer.from(`${text}${CRC_SUFFIX}\n`, 'utf8');
  const covered = bytes.length - CRC_SUFFIX_BYTES - 1;
  const hex = crc32(bytes.subarray(0, covered)).toString(16).padStart(8, '0');
  bytes.write(hex, covered + CRC_SUFFIX.indexOf('0'), 'latin1');
  return bytes;
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
  const { runId } = value as Record<string, unknown>;
  if (typeof runId !== 'string') throw new RunJournalCorruptError(file, 1, 'the version line must name the run (runId)');
  return { runId };
}

/** One line of a journal after its version line, read back (its event not yet checked). */
export type JournalLine =
  | { readonly kind: 'blank' }
  | { readonly kind: 'record'; readonly seq: number; readonly epoch: number; readonly event: unknown; readonly commit: Commit | undefined; readonly crc: number | undefined }
  | { readonly kind: 'fence'; readonly epoch: number; readonly at: number; readonly crc: number }
  /** Not a journal line. `json`: it is JSON (so it is whole: no write cut short leaves a whole JSON object). */
  | { readonly kind: 'bad'; readonly reason: string; readonly json: boolean };

const STATUSES = new Set<unknown>(['running', 'succeeded', 'failed']);
const RECORD_KEYS = new Set(['seq', 'epoch', 'event', 'appendedAt', 'status', 'crc']);
const FENCE_KEYS = new Set(['fence', 'at', 'crc']);
const CRC = /^[0-9a-f]{8}$/;
const BLANK: JournalLine = { kind: 'blank' };

/** Reads one line (without its newline). */
export function parseJournalLine(text: string): JournalLine {
  if (text === '') return BLANK;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { kind: 'bad', reason: 'is not JSON', json: false };
  }
  if (!isObject(value)) return bad('is not a record object');
  if (Object.hasOwn(value, 'fence')) return parseFence(value, text);
  for (const key in value) if (!RECORD_KEYS.has(key)) return bad(`has an unknown field ${JSON.stringify(key)}`);
  const { seq, epoch, event, appendedAt, status, crc } = value;
  if (!Number.isSafeInteger(seq) || (seq as number) < 0) return bad('has no valid seq');
  if (!Number.isSafeInteger(epoch) || (epoch as number) < 0) return bad('has no valid epoch');
  if (appendedAt === undefined && status === undefined && crc === undefined) return { kind: 'record', seq: seq as number, epoch: epoch as number, event, commit: undefined, crc: undefined };
  if (typeof appendedAt !== 'number' || !Number.isFinite(appendedAt) || !STATUSES.has(status)) return bad('has an invalid appendedAt or status');
  const checksum = crcOf(crc, text);
  if (checksum === undefined) return bad('has no valid crc as its last field');
  return { kind: 'record', seq: seq as number, epoch: epoch as number, event, commit: { appendedAt, status: status as RunStatus }, crc: checksum };
}

function parseFence(value: Record<string, unknown>, text: string): JournalLine {
  for (const key in value) if (!FENCE_KEYS.has(key)) return bad(`has an unknown field ${JSON.stringify(key)}`);
  const { fence, at, crc } = value;
  if (!Number.isSafeInteger(fence) || (fence as number) < 1) return bad('has no valid fence epoch');
  if (typeof at !== 'number' || !Number.isFinite(at)) return bad('has no valid fence time');
  const checksum = crcOf(crc, text);
  if (checksum === undefined) return bad('has no valid crc as its last field');
  return { kind: 'fence', epoch: fence as number, at, crc: checksum };
}

/** The checksum a line ends with, when it ends with `,"crc":"<8 hex digits>"}`. */
function crcOf(crc: unknown, text: string): number | undefined {
  if (typeof crc !== 'string' || !CRC.test(crc) || !text.endsWith(`,"crc":"${crc}"}`)) return undefined;
  return Number.parseInt(crc, 16);
}

const bad = (reason: string): JournalLine => ({ kind: 'bad', reason, json: true });
