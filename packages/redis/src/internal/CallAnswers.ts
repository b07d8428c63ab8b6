import { answerInterrupt, InterruptAnswerError, type RunEvent } from '@rxagents/core';
import type { ChainableCommander } from 'ioredis';
import type { SchedulerLike } from 'rxjs';
import { AnswerEntrySchema, type CallEntry, fieldOf, parseField, streamEntries } from './protocol';
import { ANSWER_REFUSED } from './RelayedInterrupts';

/** How many answers one read takes at most (the rest comes with the next check). */
const READ_COUNT = 64;

type PipelineReplies = Array<[Error | null, unknown]> | null;

/**
 * The interrupts one start of a call asked on its worker, and the answers its caller relays to them
 * through the call's answers stream: read with the worker's periodic check of the call while one is
 * open, each answered here with `answerInterrupt` (the asker's own schema decides).
 *
 * Only this start's open interrupts are answered: an answer for an interrupt of an earlier attempt (its
 * worker was lost) or one already closed is passed over. An answer the asker refuses leaves the interrupt
 * open; it is reported (`onRefused`) and said to the caller with a `custom` event {@link ANSWER_REFUSED},
 * which opens the question there again.
 */
export class CallAnswers {
  /** The ids of this start's open interrupts (strings the run chose: a `Set`, never an object's keys). */
  readonly #asked = new Set<string>();
  /** The id of the last answers entry read. */
  #lastId = '0';

  constructor(
    private readonly key: string,
    private readonly run: CallEntry['run'],
    private readonly scheduler: SchedulerLike,
    private readonly emit: (event: RunEvent) => void,
    private readonly onRefused: (error: unknown) => void,
  ) {}

  /** Whether an interrupt of this start is open: only then are answers read. */
  get asking(): boolean {
    return this.#asked.size > 0;
  }

  /** Notes an event of the call's run as the agent says it. */
  note(event: RunEvent): void {
    if (event.type === 'interrupt') this.#asked.add(event.interruptId);
    else if (event.type === 'interrupt-end') this.#asked.delete(event.interruptId);
  }

  /** Adds the read of the next answers (and the stream's ttl) to a check's pipeline: two commands. */
  read(pipeline: ChainableCommander, ttlMs: number): void {
    pipeline.xread('COUNT', READ_COUNT, 'STREAMS', this.key, this.#lastId).pexpire(this.key, ttlMs);
  }

  /** Answers the interrupts with the answers the pipeline's `index`th reply (the read) holds. */
  take(replies: PipelineReplies, index: number): void {
    const [error, raw] = replies?.[index] ?? [new Error('the pipeline was discarded'), undefined];
    if (error !== null) throw error;
    const read = streamEntries(raw);
    if (!read.ok) throw new Error(`unexpected XREAD reply of ${this.key}`);
    for (const [entryId, fields] of read.entries) {
      this.#lastId = entryId;
      const entry = parseField(AnswerEntrySchema, fieldOf(fields, 'answer'), 'answer');
      if (!entry.ok) {
        this.onRefused(new Error(`malformed answer entry ${entryId} of ${this.key}: ${entry.reason}`));
        continue;
      }
      const { interruptId, answer } = entry.value;
      if (this.run === undefined || !this.#asked.has(interruptId)) continue;
      try {
        answerInterrupt(this.run.runId, interruptId, answer);
      } catch (refusal) {
        // Not found: it closed here meanwhile (a timeout, a cancellation), which the caller hears of.
        if (!(refusal instanceof InterruptAnswerError)) continue;
        this.onRefused(refusal);
        const { runId, callId, parentCallId } = this.run;
        const data = { interruptId, issues: refusal.issues.map(({ path, rule }) => ({ path, rule })) };
        this.emit({ type: 'custom', runId, callId, parentCallId, at: this.scheduler.now(), name: ANSWER_REFUSED, data });
      }
    }
  }
}
