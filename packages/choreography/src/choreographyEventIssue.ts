import type { ConfigIssue } from '@rxagents/core';
import type { EventBus } from './EventBus';

const OPTIONAL_TEXT = ['output', 'input', 'interactionId', 'agentId'] as const;

/**
 * What is wrong with an event heard or published on an {@link EventBus}, or `undefined` when nothing is.
 *
 * @remarks
 * The rule every bus applies (the in-memory bus, the Redis bus, yours): an event is an object whose `name`
 * is a non-blank string, and whose `output`, `input`, `interactionId` and `agentId` are absent or strings.
 * A bus of your own refuses a published event that breaks it (`throw new ConfigError('publish', [issue])`)
 * and drops one it hears from outside. Hand-written rather than a zod schema: it runs once per event.
 *
 * @param event - The event to check.
 * @returns The first issue found (its `path`, `rule` and `received` value), or `undefined`.
 *
 * @example
 * ```ts
 * import { choreographyEventIssue } from '@rxagents/choreography';
 *
 * console.log(choreographyEventIssue({ name: 'draft-ready', output: 'v1' })); // undefined
 * console.log(choreographyEventIssue({ name: ' ' })?.path); // name
 * ```
 */
export function choreographyEventIssue(event: unknown): ConfigIssue | undefined {
  if (typeof event !== 'object' || event === null) return { path: '', rule: 'must be an event object { name, output?, input?, interactionId?, agentId? }', received: event };
  const fields = event as Readonly<Record<string, unknown>>;
  const { name } = fields;
  if (typeof name !== 'string' || name.trim() === '') return { path: 'name', rule: 'must be a non-blank string', received: name };
  for (const field of OPTIONAL_TEXT) {
    const value = fields[field];
    if (value !== undefined && typeof value !== 'string') return { path: field, rule: 'must be a string when present', received: value };
  }
  return undefined;
}
