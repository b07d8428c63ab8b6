import type { RunEvent, RunEventOf } from '@rxagents/core';
import type { RunInterruptData, RunUIMessageChunk } from '../RunUIMessageChunk';

/**
 * The parts of a run's open interrupts. An approval is a dynamic tool part (the action as the tool's
 * name, its arguments as the input, the interrupt's id as both the tool call's and the approval's id),
 * so the `ai` package's chat shows it as a tool call waiting for approval; an input request is a
 * `data-interrupt` part with the interrupt's id, replaced when it closes.
 */
export class InterruptParts {
  /** Every open interrupt, by its id: its end needs its kind (and an input request its question). */
  private readonly open = new Map<string, RunEventOf<'interrupt'>>();

  /** The chunks of one event of the run that concern interrupts (none for the others). */
  write(event: RunEvent): RunUIMessageChunk[] {
    if (event.type === 'interrupt') return this.start(event);
    if (event.type === 'interrupt-end') return this.end(event);
    return [];
  }

  private start(event: RunEventOf<'interrupt'>): RunUIMessageChunk[] {
    this.open.set(event.interruptId, event);
    if (event.kind === 'input') return [{ type: 'data-interrupt', id: event.interruptId, data: inputData(event, { state: 'open' }) }];
    const toolCallId = event.interruptId;
    const toolName = event.action ?? 'approval';
    const toolMetadata = { runId: event.runId, interruptId: event.interruptId, callId: event.callId };
    return [
      { type: 'tool-input-start', toolCallId, toolName, dynamic: true, title: event.question, toolMetadata },
      { type: 'tool-input-available', toolCallId, toolName, input: event.args ?? null, dynamic: true, title: event.question, toolMetadata },
      { type: 'tool-approval-request', toolCallId, approvalId: event.interruptId },
    ];
  }

  private end(event: RunEventOf<'interrupt-end'>): RunUIMessageChunk[] {
    const asked = this.open.get(event.interruptId);
    if (asked === undefined) return [];
    this.open.delete(event.interruptId);
    const errorText = event.error?.message ?? 'The question closed unanswered';
    if (asked.kind === 'input') {
      const closed = event.answered
        ? inputData(asked, { state: 'answered', answer: event.answer ?? null })
        : inputData(asked, { state: 'closed', errorText, ...(event.error?.code === undefined ? {} : { errorCode: event.error.code }) });
      return [{ type: 'data-interrupt', id: asked.interruptId, data: closed }];
    }
    const toolCallId = asked.interruptId;
    // An approval that a timeout turned into a refusal is not answered, but its answer says no.
    const decision = decisionOf(event.answer);
    if (decision?.approved === false) return [{ type: 'tool-output-denied', toolCallId }];
    if (decision?.approved === true && event.answered) return [{ type: 'tool-output-available', toolCallId, output: event.answer ?? null, dynamic: true }];
    return [{ type: 'tool-output-error', toolCallId, errorText, dynamic: true }];
  }
}

function inputData(event: RunEventOf<'interrupt'>, end: Pick<RunInterruptData, 'state' | 'answer' | 'errorText' | 'errorCode'>): RunInterruptData {
  return {
    runId: event.runId,
    interruptId: event.interruptId,
    callId: event.callId,
    parentCallId: event.parentCallId,
    question: event.question,
    schema: event.schema,
    ...end,
  };
}

function decisionOf(answer: unknown): { readonly approved: boolean } | undefined {
  if (typeof answer !== 'object' || answer === null) return undefined;
  const { approved } = answer as { approved?: unknown };
  return typeof approved === 'boolean' ? { approved } : undefined;
}
