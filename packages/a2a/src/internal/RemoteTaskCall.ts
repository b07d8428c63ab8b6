import { Role, TaskState, type Message, type StreamResponse, type Task } from '@a2a-js/sdk';
import type { Client, RequestOptions } from '@a2a-js/sdk/client';
import { askForInput, fromAbortSignal, type RunContext } from '@rxagents/core';
import { firstValueFrom, takeUntil } from 'rxjs';
import { A2aInputRequiredError } from '../errors/A2aInputRequiredError';
import { A2aStreamLostError } from '../errors/A2aStreamLostError';
import { A2aTaskFailedError } from '../errors/A2aTaskFailedError';
import { textOf } from './parts';

type Pause = { readonly kind: 'done' } | { readonly kind: 'input'; readonly question: string } | { readonly kind: 'open'; readonly error: unknown };

const FAILED_STATES = new Map<TaskState, string>([
  [TaskState.TASK_STATE_FAILED, 'failed'],
  [TaskState.TASK_STATE_REJECTED, 'rejected'],
  [TaskState.TASK_STATE_CANCELED, 'canceled'],
]);

/** Settings of one call, from the agent's options. */
export interface RemoteCallSettings {
  readonly maxResubscribes: number;
  readonly headers?: Readonly<Record<string, string>> | undefined;
}

/**
 * One call of a remote A2A agent: a task from `SendStreamingMessage` to its end, its text passed on as it arrives,
 * its questions asked in the caller's run and answered on the task, its stream resubscribed when it drops.
 */
export class RemoteTaskCall {
  private taskId: string | undefined;
  private contextId = '';
  private finished = false;
  // Characters of each artifact already passed on, so a resubscription's task snapshot passes on only the rest.
  private readonly seen = new Map<string, number>();

  constructor(
    private readonly client: Client,
    private readonly settings: RemoteCallSettings,
    private readonly run: RunContext | undefined,
    private readonly signal: AbortSignal,
    private readonly next: (text: string) => void,
  ) {}

  /** Runs the task to its end; resolves when it completed, rejects when it failed. Returns quietly once aborted. */
  async start(input: string): Promise<void> {
    let responses = this.client.sendMessageStream(this.request(input), this.options());
    let resubscribed = false;
    let failures = 0;
    for (;;) {
      const pause = await this.read(responses, resubscribed);
      resubscribed = false;
      if (pause === undefined) return;
      if (pause.kind === 'done') {
        this.finished = true;
        return;
      }
      if (pause.kind === 'input') {
        failures = 0;
        responses = this.client.sendMessageStream(this.request(await this.ask(pause.question)), this.options());
        continue;
      }
      const taskId = this.taskId;
      if (taskId === undefined) throw pause.error;
      if (++failures > this.settings.maxResubscribes) throw new A2aStreamLostError(taskId, failures - 1, pause.error);
      const task = await this.client.getTask({ tenant: '', id: taskId, historyLength: 0 }, this.options());
      const settled = this.onTask(task);
      if (settled !== undefined) {
        this.finished = true;
        return;
      }
      responses = this.client.resubscribeTask({ tenant: '', id: taskId }, this.options());
      resubscribed = true;
    }
  }

  /** Cancels the remote task, unless it has ended (an unsubscribed call). */
  cancel(): void {
    if (this.finished || this.taskId === undefined) return;
    this.finished = true;
    this.client.cancelTask({ tenant: '', id: this.taskId, metadata: {} }, { serviceParameters: this.settings.headers }).catch(() => undefined);
  }

  private async read(responses: AsyncGenerator<StreamResponse>, resubscribed: boolean): Promise<Pause | undefined> {
    try {
      for await (const response of responses) {
        const pause = this.onResponse(response);
        if (pause !== undefined) return pause;
      }
      return { kind: 'open', error: new Error('the stream ended before the task did') };
    } catch (error) {
      if (this.signal.aborted) return undefined;
      // A task that ended between reading it and resubscribing refuses the subscription: read it again.
      if (resubscribed && reasonOf(error) === 'UNSUPPORTED_OPERATION') return { kind: 'open', error };
      if (error instanceof A2aTaskFailedError || this.taskId === undefined || reasonOf(error) !== undefined) throw error;
      return { kind: 'open', error };
    }
  }

  private onResponse(response: StreamResponse): Pause | undefined {
    const payload = response.payload;
    switch (payload?.$case) {
      case 'task':
        return this.onTask(payload.value);
      case 'statusUpdate':
        this.taskId = payload.value.taskId;
        return this.onState(payload.value.status?.state, payload.value.status?.message);
      case 'artifactUpdate': {
        const { artifact } = payload.value;
        if (artifact === undefined) return undefined;
        const text = textOf(artifact.parts);
        this.seen.set(artifact.artifactId, (payload.value.append ? (this.seen.get(artifact.artifactId) ?? 0) : 0) + text.length);
        if (text !== '') this.next(text);
        return undefined;
      }
      case 'message': {
        const text = textOf(payload.value.parts);
        if (text !== '') this.next(text);
        return { kind: 'done' };
      }
      default:
        return undefined;
    }
  }

  private onTask(task: Task): Pause | undefined {
    this.taskId = task.id;
    this.contextId = task.contextId;
    for (const artifact of task.artifacts) {
      const text = textOf(artifact.parts);
      const seen = this.seen.get(artifact.artifactId) ?? 0;
      if (text.length > seen) this.next(text.slice(seen));
      this.seen.set(artifact.artifactId, Math.max(seen, text.length));
    }
    // A snapshot's status message is old news while the task works; its question or failure is what counts.
    const state = task.status?.state;
    return this.onState(state, state === TaskState.TASK_STATE_WORKING ? undefined : task.status?.message);
  }

  private onState(state: TaskState | undefined, message: Message | undefined): Pause | undefined {
    const text = message === undefined ? '' : textOf(message.parts);
    if (state === TaskState.TASK_STATE_COMPLETED) return { kind: 'done' };
    if (state === TaskState.TASK_STATE_INPUT_REQUIRED || state === TaskState.TASK_STATE_AUTH_REQUIRED) return { kind: 'input', question: text };
    const failed = state === undefined ? undefined : FAILED_STATES.get(state);
    if (failed !== undefined) {
      this.finished = true;
      throw new A2aTaskFailedError(this.taskId ?? '', failed, text);
    }
    if (state === TaskState.TASK_STATE_WORKING && text !== '') this.next(text);
    return undefined;
  }

  private async ask(question: string): Promise<string> {
    if (this.run === undefined) {
      const taskId = this.taskId ?? '';
      this.cancel();
      throw new A2aInputRequiredError(taskId, question);
    }
    return firstValueFrom(askForInput(this.run, question).pipe(takeUntil(fromAbortSignal(this.signal))));
  }

  private request(text: string) {
    const message: Message = {
      messageId: globalThis.crypto.randomUUID(),
      contextId: this.contextId,
      taskId: this.taskId ?? '',
      role: Role.ROLE_USER,
      parts: [{ content: { $case: 'text', value: text }, metadata: {}, filename: '', mediaType: 'text/plain' }],
      metadata: {},
      extensions: [],
      referenceTaskIds: [],
    };
    return { tenant: '', message, configuration: undefined, metadata: {} };
  }

  private options(): RequestOptions {
    return { signal: this.signal, serviceParameters: this.settings.headers };
  }
}

// An error the remote agent answered with (a JSON-RPC error: unknown task, bad request): not a dropped stream.
function reasonOf(error: unknown): string | undefined {
  const reason = typeof error === 'object' && error !== null ? (error as { reason?: unknown }).reason : undefined;
  return typeof reason === 'string' ? reason : undefined;
}
