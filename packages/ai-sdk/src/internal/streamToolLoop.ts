import { askForApproval, type ApprovalDecision, type RunContext } from '@rxagents/core';
import { stepCountIs, type LanguageModelUsage, type ModelMessage, type ToolApprovalResponse } from 'ai';
import { concat, defer, EMPTY, forkJoin, mergeMap, type Observable, of, throwError } from 'rxjs';
import { ToolApprovalUnavailableError } from '../errors/ToolApprovalUnavailableError';
import { streamModelParts, type ModelStreamPart, type ResponseMessage, type StreamModelPartsRequest } from '../streamModelParts';

type ApprovalRequestPart = Extract<ModelStreamPart, { type: 'tool-approval-request' }>;
type FinishPart = Extract<ModelStreamPart, { type: 'finish' }>;

/** @internal What {@link streamToolLoop} needs beyond one `streamText` call's request. */
export interface ToolLoopRequest extends Omit<StreamModelPartsRequest, 'stopWhen' | 'onResponse' | 'messages'> {
  readonly messages: readonly ModelMessage[];
  /** The agent, for the error when nobody can be asked. */
  readonly agentId: string;
  /** The call's run: approvals are asked in it. */
  readonly run: RunContext | undefined;
  /** The most model steps of the whole reply, approvals included. */
  readonly maxSteps: number;
  /** How long an approval waits before it counts as a refusal, in ms; `undefined` waits for ever. */
  readonly approvalTimeout: number | undefined;
}

/**
 * @internal The AI SDK's own tool loop, with a person asked for every tool call it holds for approval.
 *
 * @remarks
 * One `streamText` call runs the SDK's multi-step loop (model step, tools run, next step) until a stop
 * condition or a tool call that `needsApproval`: the SDK then emits a `tool-approval-request` part and
 * stops without running the tool. Each such request is asked with `askForApproval(run, toolName, input)`,
 * all of a step's at once; the decisions go back to the SDK as `tool-approval-response` parts in a `tool`
 * message after the call's response messages, and the next `streamText` call runs an approved tool (or
 * gives the model an `execution-denied` result carrying the person's reason) and goes on. Every call's
 * parts are emitted as they come, except `finish`: one `finish` ends the whole reply, its usage the sum of
 * every call's. `maxSteps` bounds the model steps of all the calls together; when it is reached with
 * approvals still open, nobody is asked and the reply ends there (finish reason `tool-calls`).
 */
export function streamToolLoop(request: ToolLoopRequest): Observable<ModelStreamPart> {
  const { agentId, run, maxSteps, approvalTimeout, messages: initial, ...call } = request;
  return defer(() => {
    let messages: readonly ModelMessage[] = initial;
    let stepsLeft = maxSteps;
    let usage: LanguageModelUsage | undefined;

    const round = (): Observable<ModelStreamPart> =>
      defer(() => {
        const asked: ApprovalRequestPart[] = [];
        let response: readonly ResponseMessage[] = [];
        let steps = 0;
        let finish: FinishPart | undefined;
        const parts$ = streamModelParts({
          ...call,
          messages: [...messages],
          stopWhen: stepCountIs(stepsLeft),
          onResponse: (said) => (response = said),
        }).pipe(
          mergeMap((part): Observable<ModelStreamPart> => {
            if (part.type === 'finish-step') steps++;
            if (part.type === 'finish') {
              usage = usage === undefined ? part.totalUsage : addUsage(usage, part.totalUsage);
              finish = part;
              return EMPTY;
            }
            if (part.type === 'tool-approval-request') {
              // Stops the model call at once: a tool nobody can approve never runs.
              if (run === undefined) return throwError(() => new ToolApprovalUnavailableError(agentId, part.toolCall.toolName));
              asked.push(part);
            }
            return of(part);
          }),
        );
        const next$ = defer((): Observable<ModelStreamPart> => {
          stepsLeft -= steps;
          if (asked.length === 0 || stepsLeft <= 0 || run === undefined) {
            return finish === undefined ? EMPTY : of({ ...finish, totalUsage: usage ?? finish.totalUsage });
          }
          return forkJoin(asked.map((part) => ask(run, part, approvalTimeout))).pipe(
            mergeMap((decisions) => {
              messages = [...messages, ...response, approvalMessage(asked, decisions)];
              return round();
            }),
          );
        });
        return concat(parts$, next$);
      });
    return round();
  });
}

/** One tool call's approval, asked in the run: the action is the tool's name, its arguments the call's input. */
function ask(run: RunContext, part: ApprovalRequestPart, approvalTimeout: number | undefined): Observable<ApprovalDecision> {
  const { toolName, input } = part.toolCall;
  // Deferred: input that is no JSON value (askForApproval refuses it) fails this reply, not the caller's stack.
  return defer(() => askForApproval(run, toolName, input, approvalTimeout === undefined ? {} : { timeout: approvalTimeout, onTimeout: 'refuse' }));
}

/** The `tool` message that gives the SDK the person's decisions. */
function approvalMessage(asked: readonly ApprovalRequestPart[], decisions: readonly ApprovalDecision[]): ModelMessage {
  const content = asked.map((part, index): ToolApprovalResponse => {
    const { approved, reason } = decisions[index] as ApprovalDecision;
    return { type: 'tool-approval-response', approvalId: part.approvalId, approved, ...(reason === undefined ? {} : { reason }) };
  });
  return { role: 'tool', content };
}

const add = (a: number | undefined, b: number | undefined): number | undefined => (a === undefined && b === undefined ? undefined : (a ?? 0) + (b ?? 0));

/** Two usage records summed, count by count (a count neither reported stays `undefined`). */
function addUsage(a: LanguageModelUsage, b: LanguageModelUsage): LanguageModelUsage {
  return {
    inputTokens: add(a.inputTokens, b.inputTokens),
    inputTokenDetails: {
      noCacheTokens: add(a.inputTokenDetails?.noCacheTokens, b.inputTokenDetails?.noCacheTokens),
      cacheReadTokens: add(a.inputTokenDetails?.cacheReadTokens, b.inputTokenDetails?.cacheReadTokens),
      cacheWriteTokens: add(a.inputTokenDetails?.cacheWriteTokens, b.inputTokenDetails?.cacheWriteTokens),
    },
    outputTokens: add(a.outputTokens, b.outputTokens),
    outputTokenDetails: {
      textTokens: add(a.outputTokenDetails?.textTokens, b.outputTokenDetails?.textTokens),
      reasoningTokens: add(a.outputTokenDetails?.reasoningTokens, b.outputTokenDetails?.reasoningTokens),
    },
    totalTokens: add(a.totalTokens, b.totalTokens),
    reasoningTokens: add(a.reasoningTokens, b.reasoningTokens),
    cachedInputTokens: add(a.cachedInputTokens, b.cachedInputTokens),
  };
}
