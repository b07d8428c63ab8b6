import { AgentEvent, type ExecutionEventBus, type RequestContext } from '@a2a-js/sdk/server';
import { Role, TaskState, type Message, type Task } from '@a2a-js/sdk';
import { answerInterrupt, InterruptAnswerError, invoke$, observeRun, type Agent, type RunEvent, type RunEventOf } from '@rxagents/core';
import type { Subscription } from 'rxjs';
import { answerFrom, textOf } from './parts';

const REPLY_ARTIFACT_ID = 'reply';

/**
 * One A2A task: one run of the served agent, from the task's first message to its end. Its events become the
 * task's status and artifact updates on the bus the A2A request handler gave for the task.
 */
export class TaskRun {
  private bus: ExecutionEventBus;
  private subscription: Subscription | undefined;
  private readonly open = new Map<string, RunEventOf<'interrupt'>>();
  private rootCallId: string | undefined;
  private replyCallId: string | undefined;
  private sent = '';
  private ended = false;
  private pause: (() => void) | undefined;

  constructor(
    private readonly agent: Agent,
    private readonly taskId: string,
    private readonly contextId: string,
    bus: ExecutionEventBus,
    private readonly onEnd: () => void,
  ) {
    this.bus = bus;
  }

  /** Starts the run on the task's first message; resolves when the task waits for input or ends. */
  start(request: RequestContext): Promise<void> {
    const input = textOf(request.userMessage.parts);
    this.bus.publish(AgentEvent.task(this.snapshot(TaskState.TASK_STATE_SUBMITTED, [request.userMessage])));
    this.status(TaskState.TASK_STATE_WORKING);
    const paused = this.nextPause();
    this.subscription = observeRun(this.agent.id, input, (run) => invoke$(this.agent, input, { run })).subscribe({
      next: (event) => this.onRunEvent(event),
      error: (error: unknown) => this.finish(TaskState.TASK_STATE_FAILED, errorText(error)),
    });
    return paused;
  }

  /**
   * The client's next message on the task: the answer to the open question, if one is open (a message on a task
   * that is working is not an answer: the reply only follows the task). Resolves at the next pause.
   */
  resume(request: RequestContext, bus: ExecutionEventBus): Promise<void> {
    this.bus = bus;
    const paused = this.nextPause();
    const stored = request.task ?? this.snapshot(TaskState.TASK_STATE_WORKING, []);
    const question = this.open.values().next().value;
    bus.publish(AgentEvent.task({ ...stored, status: { state: TaskState.TASK_STATE_WORKING, message: undefined, timestamp: undefined } }));
    if (this.ended) this.release();
    else if (question !== undefined) this.answer(question, request);
    return paused;
  }

  private answer(question: RunEventOf<'interrupt'>, request: RequestContext): void {
    try {
      answerInterrupt(question.runId, question.interruptId, answerFrom(request.userMessage.parts, question.schema));
    } catch (error) {
      if (!(error instanceof InterruptAnswerError)) throw error;
      const issues = error.issues.map((issue) => `${issue.path === '' ? 'answer' : issue.path} ${issue.rule}`).join('; ');
      this.ask(question, `That answer does not fit (${issues}). ${question.question}`);
      return;
    }
    // The run may have asked its next question synchronously (and so paused already); otherwise ask the next one open.
    if (this.pause !== undefined && !this.ended && this.open.size > 0) this.askNext();
  }

  /** Unsubscribes from the run (every agent in it is aborted) and ends the task as canceled. */
  cancel(bus: ExecutionEventBus = this.bus): void {
    this.bus = bus;
    this.subscription?.unsubscribe();
    this.finish(TaskState.TASK_STATE_CANCELED, 'Canceled by the client.');
  }

  private onRunEvent(event: RunEvent): void {
    if (this.ended) return;
    switch (event.type) {
      case 'run-start':
        this.rootCallId = event.callId;
        return;
      case 'call-start':
        if (this.replyCallId === undefined && event.parentCallId === this.rootCallId) this.replyCallId = event.callId;
        return;
      case 'text-delta':
        if (event.callId === this.replyCallId && event.delta.length > 0) {
          this.sent += event.delta;
          this.artifact(event.delta, false);
        }
        return;
      case 'interrupt':
        this.open.set(event.interruptId, event);
        if (this.open.size === 1) this.askNext();
        return;
      case 'interrupt-end':
        this.open.delete(event.interruptId);
        return;
      case 'run-end':
        if (event.success) {
          // A wrapped pattern or choreography may give its reply only as the run's output: send what the deltas did not.
          const rest = event.output !== undefined && event.output.startsWith(this.sent) ? event.output.slice(this.sent.length) : '';
          this.artifact(rest, true);
          this.finish(TaskState.TASK_STATE_COMPLETED, undefined);
        } else {
          this.finish(TaskState.TASK_STATE_FAILED, event.error === undefined ? 'The run failed.' : `${event.error.code ?? event.error.name}: ${event.error.message}`);
        }
        return;
      default:
        return;
    }
  }

  private askNext(): void {
    const question = this.open.values().next().value;
    if (question !== undefined) this.ask(question, question.question);
  }

  private ask(question: RunEventOf<'interrupt'>, text: string): void {
    this.status(TaskState.TASK_STATE_INPUT_REQUIRED, text, {
      interruptId: question.interruptId,
      kind: question.kind,
      schema: question.schema,
      ...(question.action === undefined ? {} : { action: question.action, args: question.args }),
    });
    this.release();
  }

  private finish(state: TaskState, text: string | undefined): void {
    if (this.ended) return;
    this.ended = true;
    this.status(state, text);
    this.onEnd();
    this.release();
  }

  private nextPause(): Promise<void> {
    return new Promise((resolve) => {
      this.pause = resolve;
    });
  }

  private release(): void {
    const pause = this.pause;
    this.pause = undefined;
    pause?.();
  }

  private status(state: TaskState, text?: string, metadata?: Record<string, unknown>): void {
    this.bus.publish(
      AgentEvent.statusUpdate({
        taskId: this.taskId,
        contextId: this.contextId,
        status: { state, message: text === undefined ? undefined : this.message(text, metadata), timestamp: undefined },
        metadata: {},
      }),
    );
  }

  private artifact(text: string, lastChunk: boolean): void {
    this.bus.publish(
      AgentEvent.artifactUpdate({
        taskId: this.taskId,
        contextId: this.contextId,
        artifact: { artifactId: REPLY_ARTIFACT_ID, name: 'reply', description: '', parts: [textPart(text)], metadata: {}, extensions: [] },
        append: true,
        lastChunk,
        metadata: {},
      }),
    );
  }

  private message(text: string, metadata: Record<string, unknown> = {}): Message {
    return {
      messageId: globalThis.crypto.randomUUID(),
      contextId: this.contextId,
      taskId: this.taskId,
      role: Role.ROLE_AGENT,
      parts: [textPart(text)],
      metadata,
      extensions: [],
      referenceTaskIds: [],
    };
  }

  private snapshot(state: TaskState, history: Message[]): Task {
    return { id: this.taskId, contextId: this.contextId, status: { state, message: undefined, timestamp: undefined }, artifacts: [], history, metadata: {} };
  }
}

function textPart(text: string) {
  return { content: { $case: 'text' as const, value: text }, metadata: {}, filename: '', mediaType: 'text/plain' };
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
