import type { RunEvent, RunEventOf } from '@rxagents/core';
import type { RunTextPartMetadata, RunTextProviderMetadata, RunUIMessageChunk } from '../RunUIMessageChunk';

interface OpenPart {
  readonly start: RunEventOf<'call-start'>;
  /** Whether a delta of this part was sent. */
  sent: boolean;
  /** The latest reply of a call nested under this one, while this one has sent nothing: a relay candidate. */
  reply: string | undefined;
  /** Deltas held back while they repeat `reply` from its start. */
  held: string;
  /** The call's whole text, kept only for a call nested under another call (its reply may be relayed). */
  text: string | undefined;
}

/**
 * The open text parts of a run's message, one per agent call. A call that passes on, as its own reply, the
 * reply of a call nested under it (a routing agent relaying its specialist) would show the same answer
 * twice: its deltas are held back while they repeat that reply from its start, and if the call ends with
 * exactly that reply, they are dropped and the part ends marked `relay`. Anything else sends what was held.
 * What is held is at most one nested reply per open call.
 */
export class TextParts {
  private readonly open = new Map<string, OpenPart>();
  /** Every open node's parent, to find the call a nested reply belongs to. */
  private readonly parents = new Map<string, string | null>();

  /** The chunks of one event of the run that concern text parts (none for the others). */
  write(event: RunEvent): RunUIMessageChunk[] {
    switch (event.type) {
      case 'run-start':
        this.parents.set(event.callId, event.parentCallId);
        return [];
      case 'run-end':
        this.parents.delete(event.callId);
        return [];
      case 'call-start': {
        const nested = this.openCallAbove(event.parentCallId) !== undefined;
        this.parents.set(event.callId, event.parentCallId);
        this.open.set(event.callId, { start: event, sent: false, reply: undefined, held: '', text: nested ? '' : undefined });
        return [{ type: 'text-start', id: event.callId, providerMetadata: textMetadata(event, 'streaming') }];
      }
      case 'text-delta':
        return this.delta(event);
      case 'call-end':
      case 'call-error':
        return this.end(event);
      default:
        return [];
    }
  }

  /** A `text-start` for every open part: the same parts opened again, in a page's chat that continues the message. */
  reopen(): RunUIMessageChunk[] {
    return [...this.open.values()].map((part) => ({ type: 'text-start', id: part.start.callId, providerMetadata: textMetadata(part.start, 'streaming') }) as const);
  }

  /** Ends every open part in the page's message while its call goes on (status `streaming`), sending what was held. */
  pause(): RunUIMessageChunk[] {
    return [...this.open.values()].flatMap((part) => [...this.release(part), { type: 'text-end', id: part.start.callId, providerMetadata: textMetadata(part.start, 'streaming') } as const]);
  }

  /** Ends every open part with `status`, sending what was held. */
  closeAll(status: 'failed' | 'cancelled'): RunUIMessageChunk[] {
    const chunks = [...this.open.values()].flatMap((part) => [...this.release(part), { type: 'text-end', id: part.start.callId, providerMetadata: textMetadata(part.start, status) } as const]);
    this.open.clear();
    return chunks;
  }

  private delta(event: RunEventOf<'text-delta'>): RunUIMessageChunk[] {
    const part = this.open.get(event.callId);
    if (part === undefined) return [];
    if (part.text !== undefined) part.text += event.delta;
    if (part.reply !== undefined) {
      part.held += event.delta;
      return part.reply.startsWith(part.held) ? [] : this.release(part);
    }
    part.sent = true;
    return [{ type: 'text-delta', id: event.callId, delta: event.delta }];
  }

  private end(event: RunEventOf<'call-end'> | RunEventOf<'call-error'>): RunUIMessageChunk[] {
    this.parents.delete(event.callId);
    const part = this.open.get(event.callId);
    if (part === undefined) return [];
    this.open.delete(event.callId);
    if (event.type === 'call-end') {
      const relay = part.reply !== undefined && part.held.length > 0 && part.held === part.reply;
      if (part.text !== undefined && part.text.length > 0) this.offerReply(part.start.parentCallId, part.text);
      if (relay) return [{ type: 'text-end', id: event.callId, providerMetadata: textMetadata(part.start, 'done', event.durationMs, true) }];
    }
    const status = event.type === 'call-end' ? 'done' : event.error.code === 'CALL_INTERRUPTED' ? 'interrupted' : event.error.name === 'AbortError' ? 'cancelled' : 'failed';
    return [...this.release(part), { type: 'text-end', id: event.callId, providerMetadata: textMetadata(part.start, status, event.durationMs) }];
  }

  /** A nested call replied `text`: the nearest open call above it may relay it, if it has sent nothing yet. */
  private offerReply(parentCallId: string | null, text: string): void {
    const above = this.openCallAbove(parentCallId);
    if (above === undefined || above.sent || above.held.length > 0) return;
    above.reply = text;
  }

  /** Sends what a part held: it is not a relay. */
  private release(part: OpenPart): RunUIMessageChunk[] {
    const held = part.held;
    part.reply = undefined;
    part.held = '';
    if (held.length === 0) return [];
    part.sent = true;
    return [{ type: 'text-delta', id: part.start.callId, delta: held }];
  }

  private openCallAbove(callId: string | null): OpenPart | undefined {
    for (let id = callId; id !== null; id = this.parents.get(id) ?? null) {
      const part = this.open.get(id);
      if (part !== undefined) return part;
      if (!this.parents.has(id)) return undefined;
    }
    return undefined;
  }
}

function textMetadata(start: RunEventOf<'call-start'>, status: RunTextPartMetadata['status'], durationMs?: number, relay?: true): RunTextProviderMetadata {
  return {
    rxagents: {
      callId: start.callId,
      agentId: start.agentId,
      parentCallId: start.parentCallId,
      status,
      ...(durationMs === undefined ? {} : { durationMs }),
      ...(relay === undefined ? {} : { relay }),
    },
  };
}
