import { AgentEvent, type ExecutionEventBus, type RequestContext } from '@a2a-js/sdk/server';
import { Role, TaskState } from '@a2a-js/sdk';
import { textPart } from './a2a';

/** What a scripted SDK agent publishes, written the way the SDK's samples write it. */
export function publishTask(context: RequestContext, bus: ExecutionEventBus, state = TaskState.TASK_STATE_WORKING): void {
  bus.publish(
    AgentEvent.task({
      ...(context.task ?? { id: context.taskId, contextId: context.contextId, artifacts: [], history: [context.userMessage], metadata: {} }),
      status: { state, message: undefined, timestamp: new Date().toISOString() },
    }),
  );
}

export function publishStatus(context: RequestContext, bus: ExecutionEventBus, state: TaskState, text?: string): void {
  bus.publish(
    AgentEvent.statusUpdate({
      taskId: context.taskId,
      contextId: context.contextId,
      status: {
        state,
        message:
          text === undefined
            ? undefined
            : { messageId: globalThis.crypto.randomUUID(), contextId: context.contextId, taskId: context.taskId, role: Role.ROLE_AGENT, parts: [textPart(text)], metadata: {}, extensions: [], referenceTaskIds: [] },
        timestamp: new Date().toISOString(),
      },
      metadata: {},
    }),
  );
}

export function publishText(context: RequestContext, bus: ExecutionEventBus, text: string, lastChunk = false): void {
  bus.publish(
    AgentEvent.artifactUpdate({
      taskId: context.taskId,
      contextId: context.contextId,
      artifact: { artifactId: 'answer', name: 'answer', description: '', parts: [textPart(text)], metadata: {}, extensions: [] },
      append: true,
      lastChunk,
      metadata: {},
    }),
  );
}
