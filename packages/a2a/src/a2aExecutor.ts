import type { AgentExecutor } from '@a2a-js/sdk/server';
import type { Agent } from '@rxagents/core';
import { servedTasks } from './internal/servedTasks';

/**
 * An A2A SDK `AgentExecutor` that runs one of our agents per task: mount it in your own A2A server.
 *
 * @remarks
 * {@link serveA2aAgent} serves an agent with it on loopback; use this one to put the agent behind an A2A
 * `DefaultRequestHandler` of your own (your HTTP framework, your task store, your authentication). Each task is one run
 * of the agent (`observeRun`): the task is `working` while it runs, its reply's text deltas are artifact updates of
 * the artifact `reply` (`append: true`, the last one `lastChunk: true`), an interrupt of the run (`askForInput`,
 * `askForApproval`, at any depth) makes it `input-required` with the question as the status message's text (and
 * `interruptId`, `kind`, `schema`, `action`, `args` in its metadata), and the client's next message on the task is the
 * answer. The run's end makes it `completed`, or `failed` with the error's code and message; `tasks/cancel` unsubscribes
 * from the run, which aborts every agent in it, and makes it `canceled`. Wrap a handoff, pattern or choreography as an
 * agent (`asAgent`) to serve it.
 *
 * @example
 * ```ts
 * import { DefaultRequestHandler, InMemoryTaskStore } from '@a2a-js/sdk/server';
 * import { defineAgent } from '@rxagents/core';
 * import { a2aExecutor } from '@rxagents/a2a';
 *
 * const echo = defineAgent('echo', async (input: string) => `You said: ${input}`);
 * const card = {
 *   name: 'echo', description: 'Repeats what you say', version: '1.0.0', supportedInterfaces: [], provider: undefined,
 *   capabilities: { streaming: true, extensions: [] }, securitySchemes: {}, securityRequirements: [],
 *   defaultInputModes: ['text/plain'], defaultOutputModes: ['text/plain'], skills: [], signatures: [],
 * };
 * const handler = new DefaultRequestHandler(card, new InMemoryTaskStore(), a2aExecutor(echo));
 * console.log(typeof handler.sendMessageStream); // function
 * ```
 */
export function a2aExecutor(agent: Agent): AgentExecutor {
  return servedTasks(agent).executor;
}
