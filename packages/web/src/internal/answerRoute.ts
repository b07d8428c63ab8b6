import * as z from 'zod';
import { ConfigError, InterruptAnswerError, InterruptNotFoundError } from '@rxagents/core';
import { RunHeldElsewhereError } from '../errors/RunHeldElsewhereError';
import { jsonResponse } from './jsonResponse';
import { readBounded } from './readBounded';

/** The longest `interruptId` an answer may name, in characters (the toolkit's own ids have 36). */
const MAX_ID_LENGTH = 256;

const AnswerBodySchema = z.strictObject(
  {
    interruptId: z
      .string({ error: 'must be a string' })
      .min(1, 'must be a non-empty string')
      .max(MAX_ID_LENGTH, `must be at most ${MAX_ID_LENGTH} characters`),
    answer: z.unknown().refine((answer) => answer !== undefined, { error: 'must be given (any JSON value)' }),
  },
  { error: 'must be an object' },
);

const BODY_SHAPE = 'The body must be JSON: { "interruptId": string, "answer": <JSON> }';
const NOT_FOUND = { error: { code: 'INTERRUPT_NOT_FOUND', message: 'This run has no such open interrupt' } };

/**
 * The HTTP route of a registry's answers: `POST` `{ interruptId, answer }` for the run named by the
 * route, read up to `maxAnswerBytes`, checked, then given to `answer`. Every response body is built from
 * fixed texts and the schema's rules, never from what was sent.
 */
export function answerRoute(
  answer: (runId: string, interruptId: string, answer: unknown) => Promise<void>,
  maxAnswerBytes: number,
): (runId: string, request: Request) => Promise<Response> {
  return async (runId, request) => {
    if (typeof (request as Partial<Request> | null)?.method !== 'string' || typeof (request as Partial<Request>).text !== 'function') {
      throw new ConfigError('RunRegistry.handleAnswer', [{ path: 'request', rule: 'must be a Request', received: request }]);
    }
    if (request.method !== 'POST') return jsonResponse(405, { error: { code: 'METHOD_NOT_ALLOWED', message: 'Answer with POST' } }, { allow: 'POST' });
    let body: unknown;
    try {
      const text = await readBounded(request, maxAnswerBytes);
      if (text === undefined) return jsonResponse(413, { error: { code: 'PAYLOAD_TOO_LARGE', message: `The body is longer than ${maxAnswerBytes} bytes` } });
      body = JSON.parse(text);
    } catch {
      return jsonResponse(400, { error: { code: 'CONFIG_INVALID', message: BODY_SHAPE } });
    }
    const checked = AnswerBodySchema.safeParse(body);
    if (!checked.success) return jsonResponse(400, { error: { code: 'CONFIG_INVALID', message: BODY_SHAPE, issues: checked.error.issues.map(issueOf) } });
    try {
      await answer(runId, checked.data.interruptId, checked.data.answer);
      return new Response(null, { status: 204 });
    } catch (error) {
      if (error instanceof InterruptNotFoundError) return jsonResponse(404, NOT_FOUND);
      if (error instanceof InterruptAnswerError) {
        return jsonResponse(422, { error: { code: error.code, message: 'The answer does not fit the question', issues: error.issues.map(({ path, rule }) => ({ path, rule })) } });
      }
      if (error instanceof RunHeldElsewhereError) {
        const retryAfter: Record<string, string> = error.retryAfterMs === undefined ? {} : { 'retry-after': String(Math.ceil(error.retryAfterMs / 1_000)) };
        return jsonResponse(409, { error: { code: error.code, message: error.message } }, retryAfter);
      }
      throw error;
    }
  };
}

/**
 * One problem of an answer's body, for the `400` response: the field (a key of the schema, never one the
 * body made up) and the schema's own rule, without the value received.
 */
function issueOf(issue: z.core.$ZodIssue): { readonly path: string; readonly rule: string } {
  if (issue.code === 'unrecognized_keys') return { path: '', rule: 'must have no fields but interruptId and answer' };
  return { path: issue.path.join('.'), rule: /^must /.test(issue.message) ? issue.message : 'is invalid' };
}
