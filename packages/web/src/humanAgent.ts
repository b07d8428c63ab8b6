import { Observable } from 'rxjs';
import * as z from 'zod';
import { ConfigError, configRules, emitCustom, parseConfig, type Agent, type ChatOptions } from '@rxagents/core';
import { InputRequestNotFoundError } from './errors/InputRequestNotFoundError';
import { jsonResponse } from './internal/jsonResponse';
import { OpenRequests } from './internal/OpenRequests';
import { readBounded } from './internal/readBounded';
import { sameText } from './internal/sameText';
import { checkChatCall } from './internal/checkChatCall';

/**
 * One open question from a {@link humanAgent} to its person: what {@link HumanAgent.pending} lists and
 * what the `input-request` run event carries as its `data`.
 *
 * @remarks
 * `runId` and `callId` together are what an answer must name. The run's id is the capability: whoever
 * watches the run (and only they, when its id is unguessable, as every run id the toolkit makes is) can
 * see its questions and answer them.
 *
 * @example
 * ```ts
 * import type { InputRequest } from '@rxagents/web';
 *
 * const request: InputRequest = {
 *   runId: '6b1d4a43-8f1e-4c55-9d0a-3c2f6f1e9a10',
 *   callId: '0f8c1c3e-3b1f-4a5e-9a55-2b8f0b8f6d11',
 *   agentId: 'reviewer',
 *   prompt: 'Ship it?',
 * };
 * console.log(request.prompt); // Ship it?
 * ```
 */
export interface InputRequest {
  /**
   * The run the call belongs to (its `ChatOptions.run`), the same as the run's events carry; `null` for a
   * call outside any run, which only the server's own code can answer (see {@link HumanAgent.answer}).
   */
  readonly runId: string | null;
  /** The request's id: a random UUID, unguessable, distinct from the run's ids. */
  readonly callId: string;
  /** The human agent's id. */
  readonly agentId: string;
  /** What the person is asked: the agent's input, or what the `prompt` option made of it. */
  readonly prompt: string;
}

/**
 * An answer to an {@link InputRequest}: the request's run and id, and the person's text.
 *
 * @example
 * ```ts
 * import type { InputAnswer } from '@rxagents/web';
 *
 * const answer: InputAnswer = { runId: '6b1d4a43-8f1e-4c55-9d0a-3c2f6f1e9a10', callId: '0f8c1c3e-3b1f-4a5e-9a55-2b8f0b8f6d11', text: 'Ship it.' };
 * console.log(answer.text); // Ship it.
 * ```
 */
export interface InputAnswer {
  /** The `runId` of the request answered (`null` only for a request outside any run, in code). */
  readonly runId: string | null;
  /** The `callId` of the request answered. */
  readonly callId: string;
  /** The answer: the call's reply. */
  readonly text: string;
}

/**
 * Options of {@link humanAgent}.
 *
 * @example
 * ```ts
 * import { humanAgent, type HumanAgentOptions } from '@rxagents/web';
 *
 * const options: HumanAgentOptions = { role: 'Editor', maxTextLength: 2_000, prompt: (input) => `Your turn: ${input}` };
 * const editor = humanAgent('editor', options);
 * console.log(editor.role); // Editor
 * ```
 */
export interface HumanAgentOptions {
  /** Human-readable name. */
  readonly name?: string;
  /** The person's role (woven into handoff descriptions, as for any agent). */
  readonly role?: string;
  /** The person's goal. */
  readonly goal?: string;
  /** Turns the agent's input into what the person is asked. Default: the input itself. */
  readonly prompt?: (input: string) => string;
  /** The longest answer accepted, in characters. Default 10,000. */
  readonly maxTextLength?: number;
}

/**
 * An {@link Agent} whose replies come from a person, plus the ways to give them: {@link humanAgent}'s result.
 *
 * @example
 * ```ts
 * import { humanAgent, type HumanAgent } from '@rxagents/web';
 *
 * const reviewer: HumanAgent = humanAgent('reviewer');
 * reviewer.requests$('6b1d4a43-8f1e-4c55-9d0a-3c2f6f1e9a10').subscribe((open) => console.log(`${open.length} open`)); // 0 open
 * ```
 */
export interface HumanAgent extends Agent {
  /**
   * Answers an open request: its call replies with `text` and the request closes. For the server's own
   * code; a page answers through {@link HumanAgent.handleAnswer}.
   *
   * @throws {@link InputRequestNotFoundError} when no request with this `runId` and `callId` is open (a
   * `callId` of another run's request is refused the same way).
   * @throws `ConfigError` when a field is missing, not a string or too long.
   */
  answer(answer: InputAnswer): void;
  /**
   * Answers from an HTTP request: a `POST` with the JSON body `{ "runId": string, "callId": string,
   * "text": string }`, the `runId` and `callId` of the request answered. Resolves to `204` when answered,
   * `400` for a bad body (the JSON response names the field and the rule, never what was sent), `404`
   * when no request of that run with that id is open (the same answer whether the id is unknown, ended or
   * another run's), `405` for another method, `413` for a body far longer than `maxTextLength` allows
   * (reading stops there). A request outside any run is never answered over HTTP. Rejects with a
   * `ConfigError` naming `request` when it is not a `Request`.
   */
  handleAnswer(request: Request): Promise<Response>;
  /** The run's open requests right now, oldest first (`null`: those outside any run). Never another run's. */
  pending(runId: string | null): readonly InputRequest[];
  /** The run's open requests: the current list on subscription, then the new list after every change of it. */
  requests$(runId: string | null): Observable<readonly InputRequest[]>;
}

const HumanAgentOptionsSchema = z.strictObject({
  name: z.string({ error: 'must be a string' }).optional(),
  role: z.string({ error: 'must be a string' }).optional(),
  goal: z.string({ error: 'must be a string' }).optional(),
  prompt: configRules.function().optional(),
  maxTextLength: configRules.positiveInt().default(10_000),
});

/** The longest `runId` and `callId` an answer may name, in characters (the toolkit's own ids have 36). */
const MAX_ID_LENGTH = 256;

const idRule = () =>
  z
    .string({ error: 'must be a string' })
    .min(1, 'must be a non-empty string')
    .max(MAX_ID_LENGTH, `must be at most ${MAX_ID_LENGTH} characters`);

/** An answer as {@link HumanAgent.answer} checks it: `runId` may be `null` (a request outside any run). */
const answerSchema = (maxTextLength: number) =>
  z.strictObject(
    {
      runId: idRule().nullable(),
      callId: idRule(),
      text: z.string({ error: 'must be a string' }).max(maxTextLength, `must be at most ${maxTextLength} characters`),
    },
    { error: 'must be an object' },
  );

/** An answer as {@link HumanAgent.handleAnswer} checks it: over HTTP, always a run's. */
const httpAnswerSchema = (maxTextLength: number) => answerSchema(maxTextLength).extend({ runId: idRule() });

const BODY_SHAPE = 'The body must be JSON: { "runId": string, "callId": string, "text": string }';

/**
 * Makes an agent whose replies come from a person: each call asks, then waits for the answer.
 *
 * @remarks
 * On every call the agent opens a request with a fresh `callId` (a random UUID) under the call's run
 * (`ChatOptions.run`'s `runId`), emits a `custom` run event named `input-request` with the
 * {@link InputRequest} as its `data`, lists it in that run's {@link HumanAgent.pending} and
 * {@link HumanAgent.requests$}, and waits. An answer naming that `runId` and that `callId` (both must
 * match; the run id is compared in constant time) makes the answer the call's reply, in one chunk. So one
 * agent can serve every user of a server: each run's page sees its own questions only, and an answer
 * holding another run's `callId` is refused like an unknown one. A call outside any run is listed under
 * `null` and answered by the server's code only ({@link HumanAgent.answer} with `runId: null`), never over
 * HTTP: no page was told of it. A call that ends first (its caller unsubscribed, or its `timeout`
 * passed) closes its request: a late answer gets `404`.
 *
 * Use it wherever an agent goes: as a handoff target, a debate participant, a step of a sequence.
 *
 * @param id - The agent's id (not blank).
 * @param options - Descriptions, the prompt to show and the longest answer.
 * @returns The agent, with `answer`, `handleAnswer`, `pending` and `requests$`.
 * @throws `ConfigError` for a blank id or a bad option.
 *
 * @example
 * ```ts
 * import { invoke$, observeRun } from '@rxagents/core';
 * import { humanAgent, type InputRequest } from '@rxagents/web';
 *
 * const reviewer = humanAgent('reviewer', { prompt: (draft) => `Approve this draft? ${draft}` });
 * // A page watching the run sees the `input-request` event and posts { runId, callId, text } to a route
 * // calling `reviewer.handleAnswer(request)`; here the answer comes straight away.
 * observeRun('review', 'Release notes v2', (run) => invoke$(reviewer, 'Release notes v2', { run })).subscribe((event) => {
 *   if (event.type === 'custom' && event.name === 'input-request') {
 *     const { runId, callId } = event.data as unknown as InputRequest;
 *     reviewer.answer({ runId, callId, text: 'Approved' });
 *   }
 *   if (event.type === 'run-end' && event.parentCallId === null) console.log(event.output); // Approved
 * });
 * ```
 */
export function humanAgent(id: string, options: HumanAgentOptions = {}): HumanAgent {
  const agentId = parseConfig(configRules.id(), id, 'humanAgent id');
  const { name, role, goal, prompt, maxTextLength } = parseConfig(HumanAgentOptionsSchema, options, 'humanAgent options');
  const toPrompt = (prompt as HumanAgentOptions['prompt']) ?? ((input: string) => input);
  const codeSchema = answerSchema(maxTextLength);
  const bodySchema = httpAnswerSchema(maxTextLength);
  // Room for the longest text and both ids written entirely as JSON escapes (`\uXXXX`, 6 bytes a
  // character), and the field names: 64,096 bytes with the default `maxTextLength`.
  const maxBodyBytes = maxTextLength * 6 + 4_096;
  const open = new OpenRequests<InputRequest>();

  const chat = (input: string, options: ChatOptions): Observable<string> => {
    checkChatCall(agentId, input, options);
    const { signal, run } = options;
    return new Observable<string>((subscriber) => {
      const request: InputRequest = Object.freeze({ runId: run?.runId ?? null, callId: globalThis.crypto.randomUUID(), agentId, prompt: toPrompt(input) });
      const close = () => {
        signal.removeEventListener('abort', onAbort);
        open.delete(request);
      };
      const onAbort = () => {
        close();
        subscriber.error(abortReason(signal));
      };
      if (signal.aborted) {
        subscriber.error(abortReason(signal));
        return;
      }
      signal.addEventListener('abort', onAbort, { once: true });
      open.add({
        request,
        resolve: (text) => {
          close();
          subscriber.next(text);
          subscriber.complete();
        },
      });
      emitCustom(run, 'input-request', { ...request });
      return close;
    });
  };

  /** Answers a checked answer, or throws the one error every request that does not match gets. */
  const resolve = ({ runId, callId, text }: InputAnswer): void => {
    const entry = open.get(callId);
    const held = entry?.request.runId;
    // A request of another run is refused exactly like an unknown one: the answer learns nothing.
    const matches = entry !== undefined && (held === null || runId === null ? held === runId : sameText(held as string, runId));
    if (!matches) throw new InputRequestNotFoundError(runId, callId, agentId);
    entry.resolve(text);
  };

  const handleAnswer = async (request: Request): Promise<Response> => {
    if (typeof (request as Partial<Request> | null)?.method !== 'string' || typeof (request as Partial<Request>).text !== 'function') {
      throw new ConfigError('HumanAgent.handleAnswer', [{ path: 'request', rule: 'must be a Request', received: request }]);
    }
    if (request.method !== 'POST') return jsonResponse(405, { error: { code: 'METHOD_NOT_ALLOWED', message: 'Answer with POST' } }, { allow: 'POST' });
    let body: unknown;
    try {
      const text = await readBounded(request, maxBodyBytes);
      if (text === undefined) return jsonResponse(413, { error: { code: 'PAYLOAD_TOO_LARGE', message: `The body is longer than ${maxBodyBytes} bytes` } });
      body = JSON.parse(text);
    } catch {
      return jsonResponse(400, { error: { code: 'CONFIG_INVALID', message: BODY_SHAPE } });
    }
    const checked = bodySchema.safeParse(body);
    if (!checked.success) return jsonResponse(400, { error: { code: 'CONFIG_INVALID', message: BODY_SHAPE, issues: checked.error.issues.map(issueOf) } });
    try {
      resolve(checked.data);
      return new Response(null, { status: 204 });
    } catch (error) {
      if (error instanceof InputRequestNotFoundError) return jsonResponse(404, { error: { code: error.code, message: error.message } });
      throw error;
    }
  };

  const checkRunId = (runId: unknown, what: string): string | null => parseConfig(idRule().nullable(), runId, `humanAgent ${what} runId`);

  const agent: HumanAgent = {
    id: agentId,
    ...(name === undefined ? {} : { name }),
    ...(role === undefined ? {} : { role }),
    ...(goal === undefined ? {} : { goal }),
    chat,
    answer: (answer) => resolve(parseConfig(codeSchema, answer, 'humanAgent answer')),
    handleAnswer,
    pending: (runId) => open.list(checkRunId(runId, 'pending')),
    requests$: (runId) => open.watch(checkRunId(runId, 'requests$')),
  };
  return Object.freeze(agent);
}

/**
 * One problem of an answer's body, for the `400` response: the field (a key of the schema, never one the
 * body made up) and the schema's own rule, without the value received.
 */
function issueOf(issue: z.core.$ZodIssue): { readonly path: string; readonly rule: string } {
  if (issue.code === 'unrecognized_keys') return { path: issue.path.join('.'), rule: 'must have no fields but runId, callId and text' };
  return { path: issue.path.join('.'), rule: /^must /.test(issue.message) ? issue.message : 'is invalid' };
}

function abortReason(signal: AbortSignal): Error {
  if (signal.reason instanceof Error) return signal.reason;
  const error = new Error('The call was cancelled before a person answered');
  error.name = 'AbortError';
  return error;
}
