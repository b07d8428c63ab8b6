import type { AgentExecutor, ExecutionEventBus, RequestContext } from '@a2a-js/sdk/server';
import { configRules, parseConfig, type Agent } from '@rxagents/core';
import { TaskRun } from './TaskRun';

/** The executor and a way to cancel every task it runs (a server closing). */
export function servedTasks(agent: Agent): { readonly executor: AgentExecutor; cancelAll(): void } {
  parseConfig(configRules.id(), agent?.id, 'a2aExecutor agent id');
  const tasks = new Map<string, TaskRun>();
  const executor: AgentExecutor = {
    async execute(request: RequestContext, bus: ExecutionEventBus): Promise<void> {
      const known = tasks.get(request.taskId);
      if (known !== undefined) return known.resume(request, bus);
      const task = new TaskRun(agent, request.taskId, request.contextId, bus, () => tasks.delete(request.taskId));
      tasks.set(request.taskId, task);
      return task.start(request);
    },
    async cancelTask(taskId: string, bus: ExecutionEventBus): Promise<void> {
      tasks.get(taskId)?.cancel(bus);
    },
  };
  return { executor, cancelAll: () => [...tasks.values()].forEach((task) => task.cancel()) };
}
