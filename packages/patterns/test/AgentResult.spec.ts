import { map } from 'rxjs';
import { AgentError, AgentTimeoutError } from '@rxagents/core';
import { failingAgent, hangingAgent, scriptedAgent } from '@rxagents/testing';
import { type AgentResult, ExecutionTimeoutError, Patterns } from '@rxagents/patterns';
import { testScheduler } from './helpers';

/** The fields every result has, with the error reduced to its class and message. */
const shape = (result: AgentResult) =>
  result.success
    ? { success: true, agentId: result.agentId, input: result.input, output: result.output, startedAt: result.startedAt, durationMs: result.durationMs }
    : { success: false, agentId: result.agentId, input: result.input, error: `${result.error.constructor.name}: ${result.error.message}`, timedOut: result.timedOut, startedAt: result.startedAt, durationMs: result.durationMs };

describe('AgentResult: one call, in the core shape', () => {
  it('records the prompt (a sequence passes each reply on), the reply, and start and duration on the run scheduler', () => {
    testScheduler().run(({ expectObservable }) => {
      const agents = [scriptedAgent('a', { reply: 'first', delay: 5 }), scriptedAgent('b', { reply: 'second', delay: 10 })];
      const results$ = Patterns.sequence({ agents }).execute$('Draft').pipe(map((r) => r.results.map(shape)));
      expectObservable(results$).toBe('15ms (r|)', {
        r: [
          { success: true, agentId: 'a', input: 'Draft', output: 'first', startedAt: 0, durationMs: 5 },
          { success: true, agentId: 'b', input: 'first', output: 'second', startedAt: 5, durationMs: 10 },
        ],
      });
    });
  });

  it('keeps a failure as the error instance, with timedOut telling an agent timeout from a failure', () => {
    testScheduler().run(({ expectObservable, flush }) => {
      const agents = [failingAgent('broken', new Error('quota exceeded'), { mode: 'error', delay: 3 }), hangingAgent('sloth')];
      let results: readonly AgentResult[] = [];
      Patterns.parallel({ agents, agentTimeout: 20 })
        .execute$('Work')
        .subscribe((r) => (results = r.results));
      expectObservable(Patterns.parallel({ agents, agentTimeout: 20 }).execute$('Work').pipe(map((r) => r.status))).toBe('20ms (c|)', { c: 'completed' });
      flush();
      const [broken, sloth] = [results.find((r) => r.agentId === 'broken'), results.find((r) => r.agentId === 'sloth')];
      expect(broken?.success === false && broken.error).toBeInstanceOf(AgentError);
      expect(broken && shape(broken)).toEqual({ success: false, agentId: 'broken', input: 'Work', error: 'AgentError: Agent "broken" failed: quota exceeded', timedOut: false, startedAt: 0, durationMs: 3 });
      expect(sloth?.success === false && sloth.error).toBeInstanceOf(AgentTimeoutError);
      expect(sloth && shape(sloth)).toEqual({ success: false, agentId: 'sloth', input: 'Work', error: 'AgentTimeoutError: Agent "sloth" did not answer within 20 ms', timedOut: true, startedAt: 0, durationMs: 20 });
      expect(broken?.output).toBeUndefined();
    });
  });

  it('at the overall timeout, an agent at work keeps its prompt and start; one never started has input ""', () => {
    testScheduler().run(({ expectObservable }) => {
      const agents = [scriptedAgent('quick', { reply: 'q', delay: 10 }), hangingAgent('stuck'), scriptedAgent('queued', 'never asked')];
      const failures$ = Patterns.parallel({ agents, concurrency: 1, timeout: 30 })
        .execute$('Work')
        .pipe(map((r) => r.results.filter((result) => !result.success).map(shape)));
      const message = (id: string) => `ExecutionTimeoutError: ${new ExecutionTimeoutError('parallel', 30, id).message}`;
      expectObservable(failures$).toBe('30ms (r|)', {
        r: [
          { success: false, agentId: 'stuck', input: 'Work', error: message('stuck'), timedOut: true, startedAt: 10, durationMs: 20 },
          { success: false, agentId: 'queued', input: '', error: message('queued'), timedOut: true, startedAt: 30, durationMs: 0 },
        ],
      });
    });
  });
});
