import { OpenRunNodes, type RunEvent, type SerializedError } from '@rxagents/core';
import type { RunUIMessageChunk } from '../RunUIMessageChunk';
import type { ExposeError } from '../redactError';
import { exposedError, withExposedError } from './exposeErrors';
import { InterruptParts } from './InterruptParts';
import { TextParts } from './TextParts';

/** Maps events to chunks, remembering the open text parts and whether the message started and finished. */
export class ChunkWriter {
  private started = false;
  private finished = false;
  private name = '';
  private runId = '';
  /**
   * Continuing a message the page already holds: the interrupts whose `interrupt` events must pass
   * before anything is sent (the page has every chunk up to them). `undefined` once sending.
   */
  private waiting: Set<string> | undefined;
  /** Whether the message ended at an approval while the run goes on (`endAtApproval`). */
  paused = false;
  private readonly parts = new TextParts();
  private readonly interrupts = new InterruptParts();
  /** Every node of the run still open, text parts or not: a cut-off run ends them all. */
  private readonly nodes = new OpenRunNodes();

  constructor(
    private readonly messageId: string | undefined,
    private readonly exposeError: ExposeError,
    continueAfter: readonly string[] = [],
    private readonly endAtApproval = false,
  ) {
    if (continueAfter.length > 0) this.waiting = new Set(continueAfter);
    this.answered = new Set(continueAfter);
  }

  /** The interrupts the page answered: asked again (a resumed run), they do not end the message. */
  private readonly answered: ReadonlySet<string>;

  write(raw: RunEvent): RunUIMessageChunk[] {
    if (this.waiting === undefined) return this.pauseAt(raw, this.chunksOf(raw));
    if (raw.type === 'run-end' && raw.parentCallId === null) return [...this.resume(), ...this.chunksOf(raw)];
    // Held back: the page has these chunks already.
    this.chunksOf(raw);
    if (raw.type === 'interrupt') this.waiting.delete(raw.interruptId);
    return this.waiting.size === 0 ? this.resume() : [];
  }

  /**
   * With `endAtApproval`, an approval ends the message: the open text parts end (their calls still run;
   * a continuation opens them again) and `finish` says `tool-calls`, as a model's step that waits for
   * an approval ends, so the page's chat is ready to send the answer.
   */
  private pauseAt(event: RunEvent, chunks: RunUIMessageChunk[]): RunUIMessageChunk[] {
    if (!this.endAtApproval || this.finished || event.type !== 'interrupt' || event.kind !== 'approval' || this.answered.has(event.interruptId)) return chunks;
    this.finished = true;
    this.paused = true;
    return [...chunks, ...this.parts.pause(), { type: 'finish', finishReason: 'tool-calls', messageMetadata: { runId: this.runId, name: this.name } }];
  }

  /**
   * Sending starts in a message the page holds: `start` again (same id and metadata) and a `text-start`
   * for each agent call still open, because the page's chat keeps no open text part across requests.
   */
  private resume(): RunUIMessageChunk[] {
    this.waiting = undefined;
    if (!this.started || this.finished) return [];
    return [{ type: 'start', messageId: this.messageId ?? this.runId, messageMetadata: { runId: this.runId, name: this.name } }, ...this.parts.reopen()];
  }

  private chunksOf(raw: RunEvent): RunUIMessageChunk[] {
    if (this.finished) return [];
    const event = withExposedError(raw, this.exposeError);
    this.nodes.track(event);
    const chunks: RunUIMessageChunk[] = [];
    if (!this.started) {
      this.started = true;
      if (event.type === 'run-start' && event.parentCallId === null) this.name = event.name;
      this.runId = event.runId;
      chunks.push({ type: 'start', messageId: this.messageId ?? event.runId, messageMetadata: { runId: event.runId, name: this.name } });
    }
    chunks.push(...this.parts.write(event), ...this.interrupts.write(event));
    switch (event.type) {
      case 'call-start':
      case 'text-delta':
      case 'call-end':
      case 'interrupt':
      case 'interrupt-end':
        break;
      case 'call-error':
        chunks.push({ type: 'data-run', data: event });
        break;
      case 'handoff':
        chunks.push({ type: 'data-handoff', data: event });
        break;
      case 'step':
        chunks.push({ type: 'data-step', data: event });
        break;
      case 'metrics':
        chunks.push({ type: 'data-metrics', id: event.source, data: event });
        break;
      default:
        chunks.push({ type: 'data-run', data: event });
        if (event.type === 'run-end' && event.parentCallId === null) {
          this.finished = true;
          if (isAbort(event.error)) {
            chunks.push(...this.cancelled(event.error?.message));
            break;
          }
          chunks.push(...this.closeParts());
          if (!event.success) chunks.push({ type: 'error', errorText: event.error?.message ?? 'The run failed' });
          chunks.push({
            type: 'finish',
            finishReason: event.success ? 'stop' : 'error',
            messageMetadata: { runId: event.runId, name: this.name, success: event.success, durationMs: event.durationMs },
          });
        }
    }
    return chunks;
  }

  /** The events ended: close what is open and finish the message, if the root run did not. */
  end(): RunUIMessageChunk[] {
    if (this.finished) return [];
    if (this.waiting !== undefined) return [...this.resume(), ...this.end()];
    // Nodes still open: the run was cut off, not finished; it ends as failed, visibly.
    const cut = this.endNodes({ name: 'Error', message: 'The run ended before its nodes did', code: 'RUN_CUT_OFF' });
    if (this.finished) return cut;
    this.finished = true;
    const chunks: RunUIMessageChunk[] = this.started ? [] : [{ type: 'start', ...(this.messageId === undefined ? {} : { messageId: this.messageId }) }];
    return [...chunks, ...this.closeParts(), { type: 'finish', finishReason: 'stop' }];
  }

  /** The stream was aborted: end every open node as cancelled and say so, unless the message already finished. */
  abort(reason: unknown): RunUIMessageChunk[] {
    if (this.finished) return [];
    if (this.waiting !== undefined) return [...this.resume(), ...this.abort(reason)];
    const text = reasonText(reason instanceof Error ? exposedError(reason, this.exposeError).message : reason);
    const ended = this.endNodes({ name: 'AbortError', message: text ?? CANCELLED });
    if (this.finished) return ended;
    this.finished = true;
    const chunks: RunUIMessageChunk[] = this.started ? [] : [{ type: 'start', ...(this.messageId === undefined ? {} : { messageId: this.messageId }) }];
    return [...chunks, ...ended, ...this.cancelled(text)];
  }

  /** The chunks of every open node's end, as if the run had said them (`data-run` parts, text parts closed). */
  private endNodes(error: SerializedError): RunUIMessageChunk[] {
    return this.nodes.end(error).flatMap((event) => this.write(event));
  }

  /**
   * A cancelled run's last chunks: its text parts closed as `cancelled`, an `abort` chunk (what the `ai`
   * package's server-side `onFinish` reads as `isAborted`), then an `error` chunk, because that is the
   * only end the `ai` package's chat shows as not finished: it ignores `abort` and ends with status
   * `ready`, as for a finished message.
   */
  private cancelled(reason: string | undefined): RunUIMessageChunk[] {
    return [...this.closeParts('cancelled'), reason === undefined ? { type: 'abort' } : { type: 'abort', reason }, { type: 'error', errorText: reason ?? CANCELLED }];
  }

  private closeParts(status: 'failed' | 'cancelled' = 'failed'): RunUIMessageChunk[] {
    return this.parts.closeAll(status);
  }

}

const CANCELLED = 'The run was cancelled';

const isAbort = (error: SerializedError | undefined): boolean => error?.name === 'AbortError';

/** An abort's reason as the `abort` chunk's text: an error's message, a string as it is. */
function reasonText(reason: unknown): string | undefined {
  if (reason === undefined) return undefined;
  if (reason instanceof Error) return reason.message;
  if (typeof reason === 'string') return reason;
  try {
    return JSON.stringify(reason) ?? String(reason);
  } catch {
    return String(reason);
  }
}
