import type { RunEventOf } from '../../events/RunEvent';
import { MAX_TEXT_FIELD_LENGTH } from '../../limits';
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../jsonDepth';

type Json = RunEventOf<'interrupt-end'>['answer'];

/** A JSON copy of `answer` (what the journal and every reader get), or `undefined` when it is not JSON or too long. */
export function answerAsJson(answer: unknown): { readonly value: Json } | undefined {
  if (answer === undefined || nestsDeeperThan(answer, MAX_JSON_DEPTH)) return undefined;
  try {
    const text: unknown = JSON.stringify(answer);
    if (typeof text !== 'string' || text.length > MAX_TEXT_FIELD_LENGTH) return undefined;
    return { value: JSON.parse(text) as Json };
  } catch {
    return undefined;
  }
}
