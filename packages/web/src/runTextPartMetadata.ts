import { ConfigError } from '@rxagents/core';
import type { RunTextPartMetadata } from './RunUIMessageChunk';

const STATUSES: ReadonlySet<unknown> = new Set(['streaming', 'done', 'failed', 'cancelled', 'interrupted']);

/**
 * Reads where a text part of a run's message came from (its `providerMetadata.rxagents`, see
 * {@link RunTextPartMetadata}), checked: `undefined` for a part that is not a run's text part (the
 * user's own message, another part type, metadata of the wrong shape).
 *
 * @remarks
 * The `ai` package types `providerMetadata` as JSON of any shape; this checks each field instead of
 * trusting it, so a page needs no cast. A part whose `relay` is `true` passed on a nested call's reply
 * that the nested call's own part already shows: its text is empty, and a page may skip it.
 *
 * @param part - A part of a `UIMessage` (any part: only text parts have the metadata).
 * @returns The part's metadata, or `undefined`.
 *
 * @example
 * ```ts
 * import { runTextPartMetadata } from '@rxagents/web';
 *
 * const part = { type: 'text', text: 'Paid.', providerMetadata: { rxagents: { callId: 'c1', agentId: 'billing', parentCallId: 'r1', status: 'done' } } };
 * console.log(runTextPartMetadata(part)?.agentId); // billing
 * const fromUser = { type: 'text', text: 'Hi' };
 * console.log(runTextPartMetadata(fromUser)); // undefined
 * ```
 */
export function runTextPartMetadata(part: { readonly type: string; readonly providerMetadata?: unknown }): RunTextPartMetadata | undefined {
  if (!isRecord(part)) throw new ConfigError('runTextPartMetadata', [{ path: 'part', rule: 'must be a message part (an object with a type)', received: part }]);
  if (part.type !== 'text' || !isRecord(part.providerMetadata)) return undefined;
  const value = part.providerMetadata['rxagents'];
  if (!isRecord(value)) return undefined;
  const { callId, agentId, parentCallId, status, durationMs, relay } = value;
  if (typeof callId !== 'string' || typeof agentId !== 'string' || (parentCallId !== null && typeof parentCallId !== 'string') || !STATUSES.has(status)) return undefined;
  if (durationMs !== undefined && (typeof durationMs !== 'number' || !Number.isFinite(durationMs) || durationMs < 0)) return undefined;
  if (relay !== undefined && relay !== true) return undefined;
  return {
    callId,
    agentId,
    parentCallId,
    status: status as RunTextPartMetadata['status'],
    ...(durationMs === undefined ? {} : { durationMs }),
    ...(relay === undefined ? {} : { relay }),
  };
}

function isRecord(value: unknown): value is Readonly<Record<string, unknown>> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
