import { MAX_JSON_DEPTH, nestsDeeperThan } from '../internal/jsonDepth';
import { isSerializedError } from './isSerializedError';
import type { RunEvent } from './RunEvent';

/** What a field of a run event must hold; a `?` suffix makes it optional. */
type Rule = 'string' | 'id' | 'parent' | 'number' | 'boolean' | 'count' | 'span' | 'true' | 'error' | 'nullableString' | 'metrics' | 'json' | 'interruptKind';

const BASE: Record<string, Rule> = { type: 'string', runId: 'id', callId: 'id', parentCallId: 'parent', at: 'number' };

/** The fields of each event type and their rules, as `RunEventSchema` declares them (an optional field ends in `?`). */
const EVENTS = new Map<string, Map<string, { rule: Rule; optional: boolean }>>(
  Object.entries({
    'run-start': 'name:string input:string inputOmitted?:true',
    'run-end': 'success:boolean output?:string outputOmitted?:true error?:error durationMs:span',
    'call-start': 'agentId:string input:string inputOmitted?:true',
    'text-delta': 'agentId:string delta:string',
    'call-end': 'agentId:string durationMs:span',
    'call-error': 'agentId:string error:error durationMs:span',
    handoff: 'from:string to:string taskId:string',
    'choreography-event': 'name:string source:nullableString',
    step: 'interactionId:string agentId:string success:boolean error?:error durationMs:span',
    message: 'speaker:string content:string contentOmitted?:true',
    'round-end': 'round:count',
    termination: 'decision:string reason:string',
    usage: 'agentId:string inputTokens?:count outputTokens?:count totalTokens?:count',
    metrics: 'source:string metrics:metrics',
    custom: 'name:id data:json',
    interrupt: 'interruptId:id kind:interruptKind question:string schema:json action?:id args?:json',
    'interrupt-end': 'interruptId:id answered:boolean answer?:json error?:error durationMs:span',
  }).map(([type, spec]) => {
    const fields = new Map(Object.entries(BASE).map(([name, rule]) => [name, { rule, optional: false }]));
    for (const field of spec.split(' ')) {
      const [name, rule] = field.split(':') as [string, Rule];
      fields.set(name.replace('?', ''), { rule, optional: name.endsWith('?') });
    }
    return [type, fields];
  }),
);

const isNumber = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);
const isPlainObject = (value: unknown): value is Record<string, unknown> => {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const prototype = Object.getPrototypeOf(value) as unknown;
  return prototype === Object.prototype || prototype === null;
};

/** Whether `value` is JSON (as `z.json()` checks it), its depth already checked. */
function isJson(value: unknown): boolean {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const current = stack.pop();
    if (current === null || typeof current === 'string' || typeof current === 'boolean' || isNumber(current)) continue;
    if (Array.isArray(current)) stack.push(...(current as unknown[]));
    else if (isPlainObject(current)) stack.push(...Object.values(current));
    else return false;
  }
  return true;
}

/** Why `value` breaks `rule`, or undefined when it does not. */
function broken(rule: Rule, value: unknown): string | undefined {
  switch (rule) {
    case 'string':
      return typeof value === 'string' ? undefined : 'must be a string';
    case 'id':
      return typeof value === 'string' && value.length > 0 ? undefined : 'must be a non-empty string';
    case 'parent':
      return value === null || (typeof value === 'string' && value.length > 0) ? undefined : 'must be a non-empty string or null';
    case 'nullableString':
      return value === null || typeof value === 'string' ? undefined : 'must be a string or null';
    case 'number':
      return isNumber(value) ? undefined : 'must be a finite number';
    case 'boolean':
      return typeof value === 'boolean' ? undefined : 'must be a boolean';
    case 'count':
      return Number.isSafeInteger(value) && (value as number) >= 0 ? undefined : 'must be a non-negative integer';
    case 'span':
      return isNumber(value) && value >= 0 ? undefined : 'must be a non-negative number';
    case 'true':
      return value === true ? undefined : 'must be true';
    case 'error':
      return isSerializedError(value) ? undefined : 'must be a serialized error ({ name, message, code?, retryable? })';
    case 'metrics':
      return isPlainObject(value) && Object.values(value).every((each) => isNumber(each) || typeof each === 'boolean' || typeof each === 'string')
        ? undefined
        : 'must be an object of numbers, booleans and strings';
    case 'interruptKind':
      return value === 'input' || value === 'approval' ? undefined : "must be 'input' or 'approval'";
    case 'json':
      if (nestsDeeperThan(value, MAX_JSON_DEPTH)) return `must nest at most ${MAX_JSON_DEPTH} levels deep`;
      return isJson(value) ? undefined : 'must be a JSON value';
  }
}

/**
 * The answer of {@link safeParseRunEvent}: the event, or the first rule it breaks.
 *
 * @remarks
 * Shaped as zod's `safeParse` answer: `success`, then `data` or `error.issues` (each with a `path` and a `message`).
 *
 * @example
 * ```ts
 * import { safeParseRunEvent, type RunEventCheck } from '@rxagents/core';
 *
 * const checked: RunEventCheck = safeParseRunEvent({ type: 'round-end', runId: 'r', callId: 'c', parentCallId: null, at: 0, round: -1 });
 * if (!checked.success) console.log(checked.error.issues[0]?.path); // ['round']
 * ```
 */
export type RunEventCheck =
  | { readonly success: true; readonly data: RunEvent }
  | { readonly success: false; readonly error: { readonly issues: readonly { readonly path: readonly PropertyKey[]; readonly message: string }[] } };

const fail = (path: readonly PropertyKey[], message: string): RunEventCheck => ({ success: false, error: { issues: [{ path, message }] } });

/**
 * Checks `value` against the rules of `RunEventSchema`, without zod: the check `fromEventStream` runs
 * on every frame in a browser.
 *
 * @remarks
 * It accepts exactly what `RunEventSchema` accepts (a property test holds the two together on random
 * events, valid and broken), so a page can validate a stream of run events for a few hundred bytes
 * instead of bringing zod. On success `data` is `value` itself (not a copy); on failure the issue names
 * the first field that breaks a rule. Shaped as zod's `safeParse` answer, so it fits where a schema does.
 *
 * @param value - Anything, typically what `JSON.parse` made of a frame.
 * @returns `{ success: true, data }` or `{ success: false, error: { issues } }`.
 *
 * @example
 * ```ts
 * import { safeParseRunEvent } from '@rxagents/core';
 *
 * const checked = safeParseRunEvent(JSON.parse('{"type":"text-delta","runId":"r1","callId":"c1","parentCallId":null,"at":5,"agentId":"writer","delta":"Once "}'));
 * if (checked.success && checked.data.type === 'text-delta') console.log(checked.data.delta); // Once
 * console.log(safeParseRunEvent({ type: 'text-delta' }).success); // false
 * ```
 */
export function safeParseRunEvent(value: unknown): RunEventCheck {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return fail([], 'must be an object');
  const event = value as Record<string, unknown>;
  const fields = typeof event.type === 'string' ? EVENTS.get(event.type) : undefined;
  if (fields === undefined) return fail(['type'], `must be one of ${[...EVENTS.keys()].join(', ')}`);
  for (const key of Object.keys(event)) if (!fields.has(key)) return fail([key], 'is not a field of this event');
  for (const [name, { rule, optional }] of fields) {
    const field = event[name];
    if (field === undefined && optional) continue;
    const why = broken(rule, field);
    if (why !== undefined) return fail([name], why);
  }
  return { success: true, data: value as RunEvent };
}
