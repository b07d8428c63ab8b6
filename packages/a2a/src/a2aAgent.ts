import { ClientFactory, type Client } from '@a2a-js/sdk/client';
import { configRules, parseConfig, type Agent, type ChatOptions } from '@rxagents/core';
import { Observable } from 'rxjs';
import * as z from 'zod';
import { RemoteTaskCall } from './internal/RemoteTaskCall';

const isClient = (value: unknown): value is Client =>
  typeof value === 'object' && value !== null && typeof (value as Client).sendMessageStream === 'function' && typeof (value as Client).cancelTask === 'function';

/**
 * The options of {@link a2aAgent}: which remote agent (its card's URL, or an A2A SDK client), and how to reach it.
 *
 * @example
 * ```ts
 * import { A2aAgentOptionsSchema } from '@rxagents/a2a';
 *
 * console.log(A2aAgentOptionsSchema.parse({ id: 'travel', url: 'http://127.0.0.1:4000' }).maxResubscribes); // 3
 * ```
 */
export const A2aAgentOptionsSchema = z
  .strictObject({
    /** The agent's id in our runs (its events, results and errors). */
    id: configRules.id(),
    /** The agent's name. Defaults to none. */
    name: configRules.nonEmptyString().optional(),
    /**
     * Where its card is: a URL ending in `.json` is the card's own, any other URL the agent's base URL (the card is
     * then read from `<url>/.well-known/agent-card.json`). The card is read once, at the first call. Give this or `client`.
     */
    url: z.url({ error: 'must be a URL' }).optional(),
    /** An A2A SDK `Client` to use instead of `url` (built by `ClientFactory`, with your transports and interceptors). */
    client: z.custom<Client>(isClient, { error: 'must be an A2A SDK Client (with sendMessageStream and cancelTask)' }).optional(),
    /** How many times in a row a dropped stream is resubscribed (`SubscribeToTask`) before the call fails. Defaults to 3. */
    maxResubscribes: configRules.nonNegativeInt(100).default(3),
    /** HTTP headers sent with every request (for example `authorization`, which callers of `serveA2aAgent` are told apart by). */
    headers: z.record(z.string(), z.string()).optional(),
  })
  .refine((options) => (options.url === undefined) !== (options.client === undefined), { error: 'must give exactly one of url and client', path: ['url'] });

/**
 * The options of {@link a2aAgent}; see {@link A2aAgentOptionsSchema}.
 *
 * @example
 * ```ts
 * import type { A2aAgentOptions } from '@rxagents/a2a';
 *
 * const options: A2aAgentOptions = { id: 'travel', url: 'http://127.0.0.1:4000', headers: { authorization: 'Bearer my-token' } };
 * console.log(options.id); // travel
 * ```
 */
export type A2aAgentOptions = z.input<typeof A2aAgentOptionsSchema>;

/**
 * A remote A2A agent (of any framework) as one of our agents.
 *
 * @remarks
 * Each call sends its input as a new task with `SendStreamingMessage` and passes the reply's text on as chunks as it
 * arrives (artifact updates, and the text of `working` status messages). Unsubscribing cancels the task
 * (`CancelTask`). When the task needs input (`input-required`), the status message's text becomes a question of the
 * caller's run (`askForInput(options.run, question)`: an `interrupt` event, answered with `answerInterrupt`), and the
 * answer is sent to the task as its next message; a call outside a run fails with {@link A2aInputRequiredError}. A task
 * that ends `failed`, `rejected` or `canceled` fails the call with {@link A2aTaskFailedError}. When the stream drops
 * before the task ends, the call reads the task (`GetTask`: text it missed is passed on) and resubscribes
 * (`SubscribeToTask`), up to `maxResubscribes` times in a row, then fails with {@link A2aStreamLostError}.
 *
 * @example
 * ```ts
 * import { defineAgent, invoke } from '@rxagents/core';
 * import { a2aAgent, serveA2aAgent } from '@rxagents/a2a';
 *
 * const server = await serveA2aAgent(defineAgent('echo', async (input: string) => `You said: ${input}`), { description: 'Echoes' });
 * const remote = a2aAgent({ id: 'remote-echo', url: server.url });
 * console.log(await invoke(remote, 'hi')); // You said: hi
 * await server.close();
 * ```
 */
export function a2aAgent(options: A2aAgentOptions): Agent {
  const settings = parseConfig(A2aAgentOptionsSchema, options, 'a2aAgent options');
  let client: Promise<Client> | undefined;
  const clientOf = (): Promise<Client> => {
    if (settings.client !== undefined) return Promise.resolve(settings.client);
    const url = settings.url as string;
    client ??= (url.endsWith('.json') ? new ClientFactory().createFromUrl(url, '') : new ClientFactory().createFromUrl(url)).catch((error: unknown) => {
      client = undefined;
      throw error;
    });
    return client;
  };
  return {
    id: settings.id,
    ...(settings.name === undefined ? {} : { name: settings.name }),
    chat: (input: string, { run }: ChatOptions) =>
      new Observable<string>((subscriber) => {
        const controller = new AbortController();
        let call: RemoteTaskCall | undefined;
        clientOf()
          .then((remote) => {
            if (controller.signal.aborted) return;
            call = new RemoteTaskCall(remote, settings, run, controller.signal, (text) => subscriber.next(text));
            return call.start(input);
          })
          .then(() => subscriber.complete(), (error: unknown) => subscriber.error(error));
        return () => {
          controller.abort();
          call?.cancel();
        };
      }),
  };
}
