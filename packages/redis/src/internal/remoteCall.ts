import { type ChatOptions, type RunContext, type TraceContext, TraceContextSchema, CoordinationError, emitCustom, newRunId, OpenRunNodes, parseConfig, serializeError } from '@rxagents/core';
import { Observable } from 'rxjs';
import { z } from 'zod';
import { RemoteAgentError } from '../errors/RemoteAgentError';
import { RemoteCallAttemptsError } from '../errors/RemoteCallAttemptsError';
import { RemoteCallRestartedError } from '../errors/RemoteCallRestartedError';
import { RemoteLeaseLostError } from '../errors/RemoteLeaseLostError';
import { closeClient } from './closeClient';
import { CommandBatch } from './CommandBatch';
import { LEASE_LOST } from './finalReplies';
import { keyedCallId } from './keyedCallId';
import { attachCall } from './attachCall';
import { adoptEvent } from './adoptEvent';
import { inOneWrite } from './inOneWrite';
import { LeaseRenewals } from './LeaseRenewals';
import { ReaderPool } from './ReaderPool';
import { agentKeys, callKeys } from './keys';
import { type CallEntry, parseReplies, PROTOCOL_VERSION, type ReplyEntry, streamEntries, CallerContextSchema } from './protocol';
import { RelayedInterrupts } from './RelayedInterrupts';
import { RemoteAgentOptionsSchema } from '../RemoteAgentOptions';

/** How long one blocking read of a reply stream waits before it asks again, in ms. */
const READ_BLOCK_MS = 5_000;
/** How many reply entries one read takes at most. */
const READ_COUNT = 4_096;
/**
 * How many reply entries one read of a paced run's call takes at most: what waits in the caller while
 * its reader is behind (an entry holds up to 256 replies). The rest waits in Redis.
 */
const PACED_READ_COUNT = 16;
/**
 * How long a call's answers stream outlives an answer's write, in ms, until its worker reads it (which
 * makes it live the worker's `replyTtlMs`); deleted with the call's other keys when the call is over.
 */
const ANSWERS_TTL_MS = 600_000;


type Config = z.output<typeof RemoteAgentOptionsSchema>;

const ContextOptionSchema = z.object({ context: CallerContextSchema });

/** What the calls of one remote agent share. */
export interface Shared {
  readonly commands: CommandBatch;
  readonly readers: ReaderPool;
  readonly renewals: LeaseRenewals;
}

/**
 * The trace context a call carries: the caller's function's, else the one the call was given; checked as
 * the worker checks it. A malformed `tracestate` is left out (the `traceparent` alone still joins the trace),
 * a malformed `traceparent` leaves the context out, as W3C says to ignore it.
 */
function traceContextOf(config: Config, run: RunContext | undefined, given: TraceContext | undefined): TraceContext | undefined {
  return wellFormed(config.traceContext?.(run)) ?? wellFormed(given);
}

function wellFormed(context: TraceContext | undefined): TraceContext | undefined {
  if (context === undefined) return undefined;
  const whole = TraceContextSchema.safeParse(context);
  if (whole.success) return whole.data;
  const traceparent: unknown = (context as Partial<TraceContext> | null)?.traceparent;
  return TraceContextSchema.safeParse({ traceparent }).data;
}

/**
 * One call of a remote agent, cold: on subscription it sends the call (or re-attaches to the call its
 * idempotency key names), holds its lease, reads its replies and forwards the worker's run events and
 * questions; unsubscribing cancels it.
 */
export function remoteCall({ commands, readers, renewals }: Shared, agentId: string, config: Config, input: string, { context, metadata, run, idempotencyKey, traceContext }: ChatOptions): Observable<string> {
  return new Observable<string>((subscriber) => {
    // Checked here: a call the workers' schema refuses would be dead-lettered, and its caller left waiting.
    const wireContext = context === undefined ? undefined : parseConfig(ContextOptionSchema, { context }, `call to remote agent "${agentId}"`).context;
    // With an idempotency key, every attempt of the call has one id: a caller finds the call sent before (see `attach`).
    const callId = idempotencyKey === undefined ? newRunId() : keyedCallId(agentId, idempotencyKey);
    const keys = callKeys(config.prefix, callId);
    const trace = traceContextOf(config, run, traceContext);
    const entry: CallEntry = {
      v: PROTOCOL_VERSION,
      callId,
      agentId,
      input,
      maxAttempts: config.maxAttempts,
      leaseMs: config.leaseMs,
      ...(wireContext === undefined ? {} : { context: wireContext }),
      ...(metadata === undefined ? {} : { metadata: JSON.parse(JSON.stringify(metadata)) as CallEntry['metadata'] }),
      ...(run === undefined || run.callId === null ? {} : { run: { runId: run.runId, callId: run.callId, parentCallId: run.parentCallId } }),
      ...(trace === undefined ? {} : { trace }),
    };
    let closed = false;
    // Whether a blocking read is in flight on `reader`: a reader is reused only when none is.
    let reading = false;
    // A connection of our own for the reply's blocking reads, and the keys its previous call left to delete.
    const { reader, cleanup } = readers.acquire();
    let finished = false;
    const readCount = run?.pace === undefined ? READ_COUNT : PACED_READ_COUNT;
    const callsKey = agentKeys(config.prefix, agentId).calls;
    // The call entry's id once Redis added it (undefined when adding it failed): a cancellation deletes the
    // entry, so that a worker that has not read it yet never starts it.
    let added!: (entryId: string | undefined) => void;
    const entryId = new Promise<string | undefined>((resolve) => (added = resolve));
    // A lease that ran out (this process could not renew it for leaseMs) made the worker stop the call:
    // the call ends at once with a retryable error, instead of waiting for a reply that never comes.
    const lease = renewals.hold(keys.lease, () => {
      if (!closed) fail(new RemoteLeaseLostError(agentId, callId));
    });

    // What this call has seen: the newest attempt, its held text, and whether text went out already.
    let attempt = 0;
    let lastSeq = -1;
    let held: string[] = [];
    let delivered = false;
    // Whether this caller found the call sent (by a caller before it) rather than sending it, and whether
    // the call is to be sent again: it was stopped because no caller held its lease.
    let reattached = false;
    let sendAgain = false;
    // The nodes the worker's events opened in the caller's run (a pattern the remote agent runs): a call
    // that ends before they do (its worker lost, the call cancelled) ends them, so no view shows them running.
    const forwarded = new OpenRunNodes();
    // The worker's open interrupts, open here too: answered in this process, the answer goes to the worker.
    const relays = new RelayedInterrupts(async (interruptId, answer) => {
      if (closed) return;
      await commands.send('XADD', keys.answers, '*', 'answer', JSON.stringify({ interruptId, answer }));
      await commands.send('PEXPIRE', keys.answers, ANSWERS_TTL_MS);
    });
    const endForwarded = (error: unknown): void => {
      relays.closeAll();
      if (run === undefined || forwarded.size === 0) return;
      for (const end of forwarded.end(serializeError(error))) run.emit(end);
    };
    const fail = (error: unknown): void => {
      endForwarded(error);
      subscriber.error(error);
    };

    /** Applies one reply entry; returns true when the call is over. */
    const apply = (reply: ReplyEntry): boolean => {
      if (reply.attempt < attempt) return false; // A superseded worker that has not noticed yet.
      if (reply.attempt > attempt) {
        if (reply.attempt > 1) {
          emitCustom(run, 'call-restarted', { agentId, attempt: reply.attempt });
          if (config.delivery === 'live' && delivered) {
            fail(new RemoteCallRestartedError(agentId, reply.attempt));
            return true;
          }
        }
        endForwarded(new CoordinationError('REMOTE_ATTEMPT_SUPERSEDED', `Remote agent "${agentId}": attempt ${attempt} was given up (its worker stopped); attempt ${reply.attempt} runs the call again`));
        attempt = reply.attempt;
        lastSeq = -1;
        held = [];
      }
      if (reply.seq <= lastSeq) return false; // Stored twice: ioredis resent the write after a reconnect.
      // An attempt numbers its replies from 0, its `started` (which an entry may leave out, and whose loss
      // loses nothing): a number skipped is a reply Redis no longer holds. The final reply of an exhausted
      // call is numbered past every other one on purpose.
      if (reply.seq > Math.max(lastSeq + 1, 1) && !(reply.kind === 'error' && (reply.exhausted || reply.error.code === LEASE_LOST))) {
        fail(replyLost(agentId, callId, 'REMOTE_REPLY_TRIMMED', `reply ${Math.max(lastSeq + 1, 1)} of attempt ${attempt} was deleted before this caller read it (reply ${reply.seq} came next): Redis trimmed the reply stream to the worker's replyMaxLen entries while this caller was behind; raise serveAgent's replyMaxLen`));
        return true;
      }
      lastSeq = reply.seq;
      switch (reply.kind) {
        case 'started':
          return false;
        case 'chunk':
          if (config.delivery === 'live') {
            delivered = true;
            subscriber.next(reply.text);
          } else held.push(reply.text);
          return false;
        case 'event': {
          const event = reattached && run !== undefined && run.callId !== null ? adoptEvent(reply.event, run.callId, run.parentCallId) : reply.event;
          if (run !== undefined && event.runId === run.runId) {
            relays.note(event);
            forwarded.track(event);
            run.emit(event);
          }
          return false;
        }
        case 'end':
          finished = true;
          relays.closeAll();
          for (const text of held) subscriber.next(text);
          subscriber.complete();
          return true;
        case 'error':
          finished = true;
          if (reply.error.code === LEASE_LOST && reattached && !delivered) {
            // Stopped before this caller attached (its first caller died, and its lease ran out): sent again.
            finished = false;
            sendAgain = true;
            return true;
          }
          if (reply.error.code === LEASE_LOST) fail(new RemoteLeaseLostError(agentId, callId));
          else fail(reply.exhausted ? new RemoteCallAttemptsError(agentId, reply.attempt) : new RemoteAgentError(agentId, reply.error));
          return true;
      }
    };

    /** Reads the reply's entries after `lastId`: waiting for them (`block`), or answering at once. */
    const readReply = async (lastId: string, block = true): Promise<unknown> => {
      reading = true;
      try {
        if (!block) return await reader.call('xread', 'COUNT', readCount, 'STREAMS', keys.reply, lastId);
        return await reader.call('xread', 'COUNT', readCount, 'BLOCK', READ_BLOCK_MS, 'STREAMS', keys.reply, lastId);
      } finally {
        reading = false;
      }
    };

    let cleaned = false;
    /**
     * Sends a call with an idempotency key unless it was sent before, and starts reading its reply from
     * the start (see {@link attachCall}): one script, so that of two callers of one key only one sends it.
     */
    const attach = async (call: string): Promise<unknown> => {
      if (!cleaned && cleanup.length > 0) reader.del(...cleanup).catch(() => undefined); // Before the script, on the same connection.
      cleaned = true;
      const keyList = [keys.lease, keys.reply, keys.attempts, keys.entry];
      const args: Array<string | number> = [config.leaseMs, LEASE_LOST];
      if (!commands.cluster) keyList.push(callsKey), args.push(config.callsMaxLen, call);
      reading = true;
      let sent: unknown;
      try {
        sent = await attachCall.run(reader, keyList, args);
      } finally {
        reading = false;
      }
      renewals.stored(lease);
      reattached = sent === 0 || sent === 2;
      if (typeof sent === 'string') added(sent);
      else if (sent === 0 || closed || (sent === 2 && !commands.cluster)) added(undefined);
      // Sent (1), or (2) requested by a caller that may have died before its own XADD: only one entry runs.
      else added(String(await commands.send('XADD', callsKey, 'MAXLEN', '~', config.callsMaxLen, '*', 'call', call)));
      if (closed) return null;
      return readReply('0');
    };

    const read = async (): Promise<void> => {
      const call = JSON.stringify(entry);
      let raw: unknown;
      if (idempotencyKey !== undefined) raw = await attach(call);
      else if (commands.cluster) {
        // A cluster client: each command on its own, the lease stored before the call is added.
        await commands.send('SET', keys.lease, '1', 'PX', config.leaseMs);
        renewals.stored(lease);
        if (closed) return added(undefined);
        added(String(await commands.send('XADD', callsKey, 'MAXLEN', '~', config.callsMaxLen, '*', 'call', call)));
        raw = await readReply('0');
      } else {
        // One socket write on the reader's connection, in this order: the keys of ended calls it is to
        // delete, the lease (stored before any worker can read the call), the call, and the first
        // blocking read. Each command settles on its own: the read, while it waits, holds only itself.
        reading = true;
        const [, first] = await inOneWrite(reader, () => {
          if (cleanup.length > 0) reader.del(...cleanup).catch(() => undefined); // The clean-up's failure is not this call's.
          const leased = reader.set(keys.lease, '1', 'PX', config.leaseMs);
          leased.then(() => renewals.stored(lease), () => undefined);
          const call$ = reader.xadd(callsKey, 'MAXLEN', '~', config.callsMaxLen, '*', 'call', call);
          call$.then((id) => added(id ?? undefined), () => added(undefined));
          const firstRead = reader.call('xread', 'COUNT', readCount, 'BLOCK', READ_BLOCK_MS, 'STREAMS', keys.reply, '0');
          // Reading until the read itself is answered, even when the lease or the call failed before.
          firstRead.then(
            () => (reading = false),
            () => (reading = false),
          );
          return Promise.all([leased, firstRead, call$]);
        });
        raw = first;
      }
      let lastId = '0';
      // Whether this call waited for its run's reader since its last read: the reply stream may have
      // expired meanwhile, with entries this call had not read. A call that reads on waits in a blocking
      // read, which returns what the stream holds at once: an expiry then loses nothing.
      let stalled = false;
      let afterStall = false;
      reading: while (!closed) {
        const read = streamEntries(raw);
        if (!read.ok) throw protocolError(agentId, `unexpected XREAD reply: ${z.prettifyError(read.error)}`);
        if (afterStall && read.entries.length === 0 && (await reader.exists(keys.reply)) === 0) {
          throw replyLost(agentId, callId, 'REMOTE_REPLY_EXPIRED', `its reply stream expired (the worker's replyTtlMs after its last write) while this caller's reader was behind, with replies it had not read; raise serveAgent's replyTtlMs above the longest stall of a reader`);
        }
        for (const [entryId, fields] of read.entries) {
          lastId = entryId;
          const replies = parseReplies(fields);
          if (!replies.ok) throw protocolError(agentId, `malformed reply entry ${entryId}: ${replies.reason}`);
          for (const reply of replies.value) {
            // A paced run whose reader fell behind: the rest of the reply waits in Redis, not in this process.
            // Woken, it asks again: other calls waiting on the same gate may have taken the room.
            for (let gate = run?.pace?.(); gate !== undefined; gate = run?.pace?.()) {
              stalled = true;
              await gate;
              if (closed) return;
            }
            if (apply(reply)) {
              if (!sendAgain) return;
              sendAgain = false;
              endForwarded(new CoordinationError('REMOTE_ATTEMPT_SUPERSEDED', `Remote agent "${agentId}": the call was stopped before this caller attached; it is sent again`));
              attempt = 0;
              lastSeq = -1;
              held = [];
              lastId = '0';
              stalled = false;
              afterStall = false;
              raw = await attach(call);
              if (closed) return;
              continue reading;
            }
          }
        }
        // After a stall, a read that answers at once: an empty answer is then followed by a look at the stream.
        afterStall = stalled;
        stalled = false;
        raw = await readReply(lastId, !afterStall);
        if (closed) return;
      }
    };

    read().then(
      () => undefined,
      (error: unknown) => {
        added(undefined);
        if (!closed) fail(error);
      },
    );

    return () => {
      closed = true;
      // Cancelled (or timed out) while the worker's nodes were open: they end with the call.
      endForwarded(Object.assign(new Error(`call to remote agent "${agentId}" was cancelled`), { name: 'AbortError' }));
      renewals.release(lease);
      // A call with an idempotency key that ended keeps its reply for the worker's replyTtlMs: a caller
      // resumed after a crash of this one reads it there instead of running the call again.
      const own = finished && idempotencyKey !== undefined ? [keys.lease, keys.answers] : [keys.lease, keys.reply, keys.attempts, keys.entry, keys.answers];
      // A call that ended leaves its keys to the reader's next call (or to the reader's closing): no write now.
      if (finished && !reading && !commands.cluster && readers.release(reader, own)) return;
      // No idle pool is sure to stop the renewals' timer after this call: stop it now if no call holds a lease.
      renewals.stopIfIdle();
      // Deleting the lease is what stops a call running on a worker.
      commands.send('DEL', ...own).catch(() => undefined);
      if (cleanup.length > 0) commands.send('DEL', ...cleanup).catch(() => undefined);
      if (!reading) readers.release(reader, []);
      // A read in flight ends with its connection, once the call's entry id is in (a cancellation needs it).
      // If the connection drops first (Redis went away), it is closed then: the id would come, if ever, only
      // after a reconnect, and a connection left reconnecting for a call that is over keeps the process alive.
      const wasReading = reading;
      const onClose = (): void => closeClient(reader);
      if (wasReading) {
        if (reader.status === 'ready') reader.once('close', onClose);
        else onClose();
      }
      void entryId.then((id) => {
        if (wasReading) {
          reader.off('close', onClose);
          closeClient(reader);
        }
        // A call that has not ended may still wait for a worker: deleting its entry makes sure none starts it.
        if (id !== undefined && !finished) commands.send('XDEL', callsKey, id).catch(() => undefined);
      });
    };
  });
}

/** A call's reply that Redis no longer holds (trimmed, expired): `message` says which, and what to raise. */
function replyLost(agentId: string, callId: string, code: 'REMOTE_REPLY_TRIMMED' | 'REMOTE_REPLY_EXPIRED', message: string): CoordinationError {
  return new CoordinationError(code, `Remote agent "${agentId}": call ${callId}: ${message}`, { retryable: true, context: { agentId, callId } });
}

function protocolError(agentId: string, message: string): CoordinationError {
  return new CoordinationError('REMOTE_PROTOCOL_ERROR', `Remote agent "${agentId}": ${message}`, { context: { agentId } });
}
