import { from, type ObservableInput, throwError } from 'rxjs';
import { type Agent, type AgentMessage, type ChatOptions } from '@rxagents/core';
import { z } from 'zod';
import { idIssues, issuesAt, throwIfAny } from './internal/issuesAt';
import { checkChatCall } from './internal/checkChatCall';

/**
 * One call a {@link recordingAgent} received.
 *
 * @remarks
 * `options` is the {@link ChatOptions} the agent was given, so context and metadata can be asserted;
 * `aborted` reads the call's signal each time it is accessed.
 *
 * @example
 * ```ts
 * import { invoke$ } from '@rxagents/core';
 * import { recordingAgent, type RecordedCall } from '@rxagents/testing';
 *
 * const writer = recordingAgent('writer', async (input) => input);
 * invoke$(writer, 'draft', { metadata: { taskId: 't1' } }).subscribe().unsubscribe();
 * const [call]: readonly RecordedCall[] = writer.calls;
 * console.log(call?.input, call?.options.metadata, call?.aborted); // draft { taskId: 't1' } true
 * ```
 */
export interface RecordedCall {
  readonly input: string;
  readonly options: ChatOptions;
  /** Whether the call's signal has been aborted (read live). */
  readonly aborted: boolean;
}

/**
 * An agent that records every input, `ChatOptions`, abort and received message.
 *
 * @remarks
 * What {@link recordingAgent} returns. `receive` records the message and forwards it to a wrapped agent.
 *
 * @example
 * ```ts
 * import { invoke$ } from '@rxagents/core';
 * import { recordingAgent, scriptedAgent, type RecordingAgent } from '@rxagents/testing';
 *
 * const billing: RecordingAgent = recordingAgent('billing', scriptedAgent('billing-script', 'Refund issued.'));
 * billing.receive({ type: 'HANDOFF_REQUEST', from: 'intake', to: 'billing', payload: { taskId: 't1' } });
 * invoke$(billing, 'Refund order 42').subscribe(console.log); // Refund issued.
 * console.log(billing.inputs, billing.received.length); // [ 'Refund order 42' ] 1
 * ```
 */
export interface RecordingAgent extends Agent {
  readonly calls: readonly RecordedCall[];
  readonly inputs: readonly string[];
  /** Messages delivered through `receive` (for example `HANDOFF_REQUEST`). */
  readonly received: readonly AgentMessage[];
  readonly abortCount: number;
  receive(message: AgentMessage): void;
}

/**
 * Wraps an agent (or an answering function) and records everything it is asked.
 *
 * @remarks
 * Use it to assert what context a handoff passed, which metadata arrived, or that a call was aborted.
 * With no `inner`, it answers `''` at once. A call whose signal is already aborted is recorded, but the
 * inner agent is never started: the call fails with the signal's reason.
 *
 * @throws {@link @rxagents/core!ConfigError | ConfigError} when the id is blank, `inner` is neither an
 * agent nor a function, or `details` has an unknown key.
 *
 * @example
 * ```ts
 * import { invoke$ } from '@rxagents/core';
 * import { recordingAgent } from '@rxagents/testing';
 *
 * const writer = recordingAgent('writer', async (input) => `draft of ${input}`);
 * invoke$(writer, 'the intro', { context: [{ role: 'user', content: 'be brief' }] }).subscribe();
 * console.log(writer.calls[0]?.options.context?.length); // 1
 * ```
 */
export function recordingAgent(
  id: string,
  inner: Agent | ((input: string, options: ChatOptions) => ObservableInput<string>) = async () => '',
  details: { readonly name?: string; readonly role?: string; readonly goal?: string } = {},
): RecordingAgent {
  throwIfAny('recordingAgent', [
    ...idIssues(id),
    ...issuesAt(InnerSchema, inner, 'inner'),
    ...issuesAt(DetailsSchema, details, 'details'),
  ]);
  const calls: RecordedCall[] = [];
  const received: AgentMessage[] = [];
  const answer = typeof inner === 'function' ? inner : (input: string, options: ChatOptions) => inner.chat(input, options);
  return {
    id,
    ...details,
    get calls() {
      return calls;
    },
    get inputs() {
      return calls.map((call) => call.input);
    },
    get received() {
      return received;
    },
    get abortCount() {
      return calls.filter((call) => call.aborted).length;
    },
    chat(input: string, options: ChatOptions): ObservableInput<string> {
      checkChatCall(id, input, options);
      calls.push({
        input,
        options,
        get aborted() {
          return options.signal.aborted;
        },
      });
      if (options.signal.aborted) return throwError(() => options.signal.reason);
      return from(answer(input, options));
    },
    receive(message: AgentMessage): void {
      received.push(message);
      if (typeof inner !== 'function') inner.receive?.(message);
    },
  };
}

const InnerSchema = z.custom<unknown>(
  (value) => typeof value === 'function' || (typeof value === 'object' && value !== null && typeof (value as Agent).chat === 'function'),
  { error: 'must be an agent (with chat) or a function' },
);

const DetailsSchema = z.strictObject(
  {
    name: z.string({ error: 'must be a string' }).optional(),
    role: z.string({ error: 'must be a string' }).optional(),
    goal: z.string({ error: 'must be a string' }).optional(),
  },
  { error: 'must be an object' },
);
