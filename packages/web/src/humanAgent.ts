import { BehaviorSubject, Observable, distinctUntilChanged } from 'rxjs';
import { z } from 'zod';
import { ConfigError, configRules, emitCustom, parseConfig, type Agent, type ChatOptions } from '@rxagents/core';
import { InputRequestNotFoundError } from './errors/InputRequestNotFoundError';

/**
 * One open question from a {@link humanAgent} to its person: what {@link HumanAgent.pending} lists and
 * what the `input-request` run event carries as its `data`.
 *
 * @example
 * ```ts
 * import type { InputRequest } from '@rxagents/web';
 *
 * const request: InputRequest = { callId: '0f8c1c3e-3b1f-4a5e-9a55-2b8f0b8f6d11', agentId: 'reviewer', prompt: 'Ship it?' };
 * console.log(request.prompt); // Ship it?
 * ```
 */
export interface InputRequest {
  /** The request's id: a random UUID, unguessable, distinct from the run's ids. Answer with it. */
  readonly callId: string;
  /** The human agent's id. */
  readonly agentId: string;
  /** What the person is asked: the agent's input, or what the `prompt` option made of it. */
  readonly prompt: string;
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
 * reviewer.requests$.subscribe((open) => console.log(`${open.length} open`)); // 0 open
 * ```
 */
export interface HumanAgent extends Agent {
  /**
   * Answers an open request: its call replies with `text` and the request closes.
   *
   * @throws {@link InputRequestNotFoundError} when no request with this `callId` is open.
   * @throws `ConfigError` when `text` is not a string or longer than `maxTextLength`.
   */
  answer(callId: string, text: string): void;
  /**
   * Answers from an HTTP request: a `POST` with the JSON body `{ "callId": string, "text": string }`.
   * Resolves to `204` when answered, `400` for a bad body (the JSON response says which field),
   * `404` when no such request is open, `405` for another method, `413` for a body far longer than
   * `maxTextLength` allows (reading stops there).
   */
  handleAnswer(request: Request): Promise<Response>;
  /** The requests open right now, oldest first. */
  pending(): readonly InputRequest[];
  /** The open requests: the current list on subscription, then the new list after every change. */
  readonly requests$: Observable<readonly InputRequest[]>;
}

const HumanAgentOptionsSchema = z.strictObject({
  name: z.string({ error: 'must be a string' }).optional(),
  role: z.string({ error: 'must be a string' }).optional(),
  goal: z.string({ error: 'must be a string' }).optional(),
  prompt: configRules.function().optional(),
  maxTextLength: configRules.positiveInt().default(10_000),
});

/** The body of an answer, as {@link HumanAgent.handleAnswer} and {@link HumanAgent.answer} check it. */
const answerSchema = (maxTextLength: number) =>
  z.strictObject({
    callId: z.string({ error: 'must be a string' }).min(1, 'must be a non-empty string'),
    text: z.string({ error: 'must be a string' }).max(maxTextLength, `must be at most ${maxTextLength} characters`),
  });

interface Waiting {
  readonly request: InputRequest;
  readonly resolve: (text: string) => void;
}

/**
 * Makes an agent whose replies come from a person: each call asks, then waits for the answer.
 *
 * @remarks
 * On every call the agent opens a request with a fresh `callId` (a random UUID, so only the page that was
 * told it can answer), emits a `custom` run event named `input-request` with the {@link InputRequest}
 * as its `data` (when the call belongs to a run), lists it in {@link HumanAgent.pending} and
 * {@link HumanAgent.requests$}, and waits. {@link HumanAgent.answer} or {@link HumanAgent.handleAnswer}
 * with that `callId` makes the answer the call's reply, in one chunk. A call that ends first (its caller
 * unsubscribed, or its `timeout` passed) closes its request: a late answer gets `404`.
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
 * import { invoke } from '@rxagents/core';
 * import { humanAgent } from '@rxagents/web';
 *
 * const reviewer = humanAgent('reviewer', { prompt: (draft) => `Approve this draft? ${draft}` });
 * // A server would tell the page about the request (the run's `input-request` event) and route its POST to
 * // `reviewer.handleAnswer(request)`; here the answer comes straight away.
 * reviewer.requests$.subscribe((open) => {
 *   for (const { callId } of open) reviewer.answer(callId, 'Approved');
 * });
 * console.log(await invoke(reviewer, 'Release notes v2')); // Approved
 * ```
 */
export function humanAgent(id: string, options: HumanAgentOptions = {}): HumanAgent {
  const agentId = parseConfig(configRules.id(), id, 'humanAgent id');
  const { name, role, goal, prompt, maxTextLength } = parseConfig(HumanAgentOptionsSchema, options, 'humanAgent options');
  const toPrompt = (prompt as HumanAgentOptions['prompt']) ?? ((input: string) => input);
  const bodySchema = answerSchema(maxTextLength);
  // Room for the longest text written entirely as JSON escapes (`\uXXXX`, 6 bytes a character) and the callId.
  const maxBodyBytes = maxTextLength * 6 + 1_024;
  const waiting = new Map<string, Waiting>();
  const open$ = new BehaviorSubject<readonly InputRequest[]>([]);
  const openRequests = (): readonly InputRequest[] => [...waiting.values()].map((entry) => entry.request);
  let publishing = false;
  let changed = false;
  // A subscriber that answers as it is told of a request changes the list while it is being sent: the new
  // list goes out after the one being sent, so every subscriber gets the lists in order and the latest last.
  const publish = (): void => {
    changed = true;
    if (publishing) return;
    publishing = true;
    try {
      while (changed) {
        changed = false;
        open$.next(openRequests());
      }
    } finally {
      publishing = false;
    }
  };

  const chat = (input: string, { signal, run }: ChatOptions): Observable<string> =>
    new Observable<string>((subscriber) => {
      const request: InputRequest = Object.freeze({ callId: globalThis.crypto.randomUUID(), agentId, prompt: toPrompt(input) });
      const close = () => {
        signal.removeEventListener('abort', onAbort);
        if (waiting.delete(request.callId)) publish();
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
      waiting.set(request.callId, {
        request,
        resolve: (text) => {
          close();
          subscriber.next(text);
          subscriber.complete();
        },
      });
      emitCustom(run, 'input-request', { ...request });
      publish();
      return close;
    });

  const answer = (callId: string, text: string): void => {
    const body = parseConfig(bodySchema, { callId, text }, 'humanAgent answer');
    const entry = waiting.get(body.callId);
    if (entry === undefined) throw new InputRequestNotFoundError(body.callId, agentId);
    entry.resolve(body.text);
  };

  const handleAnswer = async (request: Request): Promise<Response> => {
    if (request.method !== 'POST') return json(405, { error: { code: 'METHOD_NOT_ALLOWED', message: 'Answer with POST' } }, { allow: 'POST' });
    let body: unknown;
    try {
      const text = await readBounded(request, maxBodyBytes);
      if (text === undefined) return json(413, { error: { code: 'PAYLOAD_TOO_LARGE', message: `The body is longer than ${maxBodyBytes} bytes` } });
      body = JSON.parse(text);
    } catch {
      return json(400, { error: { code: 'CONFIG_INVALID', message: 'The body must be JSON: { "callId": string, "text": string }' } });
    }
    try {
      const { callId, text } = parseConfig(bodySchema, body, 'humanAgent answer');
      answer(callId, text);
      return new Response(null, { status: 204 });
    } catch (error) {
      if (error instanceof ConfigError) return json(400, { error: { code: error.code, message: error.message } });
      if (error instanceof InputRequestNotFoundError) return json(404, { error: { code: error.code, message: error.message } });
      throw error;
    }
  };

  const agent: HumanAgent = {
    id: agentId,
    ...(name === undefined ? {} : { name }),
    ...(role === undefined ? {} : { role }),
    ...(goal === undefined ? {} : { goal }),
    chat,
    answer,
    handleAnswer,
    pending: openRequests,
    requests$: open$.pipe(distinctUntilChanged()),
  };
  return Object.freeze(agent);
}

function abortReason(signal: AbortSignal): Error {
  if (signal.reason instanceof Error) return signal.reason;
  const error = new Error('The call was cancelled before a person answered');
  error.name = 'AbortError';
  return error;
}

/** The body as text, or `undefined` when it is longer than `maxBytes` (reading stops there). */
async function readBounded(request: Request, maxBytes: number): Promise<string | undefined> {
  if (request.body === null) return '';
  const reader = request.body.getReader();
  const decoder = new TextDecoder();
  let size = 0;
  let text = '';
  for (let next = await reader.read(); !next.done; next = await reader.read()) {
    size += next.value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      return undefined;
    }
    text += decoder.decode(next.value, { stream: true });
  }
  return text + decoder.decode();
}

function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json; charset=utf-8', ...headers } });
}
