import type { ConfigIssue } from '@rxagents/core';

const OPTIONAL_TEXT = ['output', 'input', 'interactionId', 'agentId'] as const;

/**
 * What is wrong with an event published on the bus, by the rule the in-memory bus applies: not an object,
 * a `name` that is no non-blank string, or an `output`, `input`, `interactionId` or `agentId` that is
 * neither absent nor a string. Hand-written rather than a zod schema: it runs once per event.
 *
 * @internal
 */
export function malformedEvent(event: unknown): ConfigIssue | undefined {
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
