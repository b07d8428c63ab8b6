import { z } from 'zod';
import { answerInterrupt, InterruptAnswerError, InterruptNotFoundError } from '@rxagents/core';
import type { DurableRunRegistry } from '@rxagents/web';
import { readJson } from './readJson';

/** The longest body the answer route reads: an approval's reason is at most 10,000 characters. */
export const MAX_ANSWER_BODY_BYTES = 64 * 1_024;

const AnswerBodySchema = z
  .strictObject({ interruptId: z.string().min(1).max(200), answer: z.unknown() })
  .refine((body) => body.answer !== undefined, { path: ['answer'], message: 'is required' });

const ANSWER_BODY_SHAPE = 'The body must be JSON: { "interruptId": string, "answer": the answer its question asks for }';
/** One answer for an unknown run, another run's interrupt and an unknown or closed one: none tells which. */
const NOT_OPEN = 'No such question is open in this run';

/**
 * `POST /api/runs/:runId/answer` with `{ interruptId, answer }`: a person's answer to a question of the
 * run, taken only for a run the registry holds and an interrupt open in that run (both ids must
 * match: holding one run's id does not answer another's questions). `204` once taken; `400` for a body
 * that is not that JSON, `404` when no such question is open, `405` for another method, `413` past
 * {@link MAX_ANSWER_BODY_BYTES}, `422` with the rules broken when the answer does not fit the question
 * (which keeps waiting). No answer echoes what was sent.
 */
export async function answerRoute(registry: Pick<DurableRunRegistry, 'has'>, runId: string, request: Request): Promise<Response> {
  if (request.method !== 'POST') return Response.json({ error: 'Use POST' }, { status: 405, headers: { allow: 'POST' } });
  const body = await readJson(request, MAX_ANSWER_BODY_BYTES);
  if (body === 'too large') return Response.json({ error: `The body is longer than ${MAX_ANSWER_BODY_BYTES} bytes` }, { status: 413 });
  const parsed = AnswerBodySchema.safeParse(body?.json);
  if (!parsed.success) return Response.json({ error: ANSWER_BODY_SHAPE }, { status: 400 });
  if (!registry.has(runId)) return Response.json({ error: NOT_OPEN }, { status: 404 });
  try {
    answerInterrupt(runId, parsed.data.interruptId, parsed.data.answer);
  } catch (error) {
    if (error instanceof InterruptNotFoundError) return Response.json({ error: NOT_OPEN }, { status: 404 });
    if (error instanceof InterruptAnswerError) return Response.json({ error: 'The answer does not fit the question', issues: error.issues }, { status: 422 });
    throw error;
  }
  return new Response(null, { status: 204 });
}
