import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { answerInterrupt, InterruptAnswerError, InterruptNotFoundError, invoke$, observeRun, pendingInterrupts, pendingInterrupts$, type RunEvent, type RunEventOf } from '@rxagents/core';
import type { Redis } from 'ioredis';
import { remoteAgent } from '../src';
import { describeRedis } from './support/describeRedis';
import { killProcess, spawnProcess } from './support/spawnProcess';
import { waitUntil } from './support/waitUntil';

jest.setTimeout(60_000);

describeRedis('interrupts of a remote agent, answered in the caller’s process', (server) => {
  let prefix: string;
  let redis: Redis;
  const children: ChildProcess[] = [];
  const startWorker = async () => {
    const child = await spawnProcess('support/askingWorker.ts', { REDIS_PORT: String(server().port), PREFIX: prefix });
    children.push(child);
    return child;
  };
  beforeEach(() => {
    prefix = `ri-${randomUUID()}`;
    redis = server().client();
  });
  afterEach(async () => {
    await Promise.all(children.splice(0).map((child) => killProcess(child)));
  });

  /** Runs the remote asker with `input` in a run of this process. */
  const startRun = (input: string) => {
    const asker = remoteAgent(server().client(), 'asker', { prefix });
    const events: RunEvent[] = [];
    let subscription!: { unsubscribe(): void };
    const ended = new Promise<RunEvent[]>((resolve, reject) => {
      subscription = observeRun('ask', input, (run) => invoke$(asker, input, { run })).subscribe({ next: (event) => events.push(event), complete: () => resolve(events), error: reject });
    });
    const runId = (): string => events[0]?.runId ?? '';
    /** The question open on this process's board once there is one other than `not`. */
    const asked = async (not?: string): Promise<RunEventOf<'interrupt'>> => {
      await waitUntil('a question of the remote agent is open here', () => events.length > 0 && pendingInterrupts(runId()).some((open) => open.interruptId !== not));
      const open = pendingInterrupts(runId());
      expect(open).toHaveLength(1);
      return open[0] as RunEventOf<'interrupt'>;
    };
    return { events, ended, asked, runId, cancel: () => subscription.unsubscribe() };
  };
  const outputOf = (events: readonly RunEvent[]) => {
    const end = events.at(-1);
    return end?.type === 'run-end' ? end.output : undefined;
  };

  it('answers a question for input from the caller: a bad answer throws and the question stays open, a good one finishes the call with it', async () => {
    await startWorker();
    const run = startRun('days');
    const question = await run.asked();
    expect(question).toMatchObject({ type: 'interrupt', kind: 'input', question: 'How many days?' });
    const lists: number[] = [];
    const watch = pendingInterrupts$(run.runId()).subscribe((open) => lists.push(open.length));

    expect(() => answerInterrupt(run.runId(), question.interruptId, 0)).toThrow(InterruptAnswerError);
    expect(() => answerInterrupt(run.runId(), question.interruptId, 'three')).toThrow(InterruptAnswerError);
    expect(pendingInterrupts(run.runId()).map((open) => open.interruptId)).toEqual([question.interruptId]);

    answerInterrupt(run.runId(), question.interruptId, 3);
    expect(pendingInterrupts(run.runId())).toEqual([]);
    expect(() => answerInterrupt(run.runId(), question.interruptId, 4)).toThrow(InterruptNotFoundError);
    const events = await run.ended;
    watch.unsubscribe();
    expect(outputOf(events)).toBe('A 3-day plan');
    expect(events.find((event) => event.type === 'interrupt-end')).toMatchObject({ interruptId: question.interruptId, answered: true, answer: 3 });
    expect(lists[0]).toBe(1);
    expect(lists.at(-1)).toBe(0);
    expect(pendingInterrupts(run.runId())).toEqual([]);
  });

  it('answers an approval from the caller', async () => {
    await startWorker();
    const run = startRun('refund');
    const question = await run.asked();
    expect(question).toMatchObject({ kind: 'approval', action: 'refund', args: { customer: 'Ada', amount: 120 } });
    expect(() => answerInterrupt(run.runId(), question.interruptId, { approved: 'yes' })).toThrow(InterruptAnswerError);
    answerInterrupt(run.runId(), question.interruptId, { approved: false, reason: 'Over the limit' });
    expect(outputOf(await run.ended)).toBe('No refund: Over the limit');
  });

  it('leaves nothing on the caller’s board, nor of the call in Redis, when the call is cancelled while it asks', async () => {
    await startWorker();
    const run = startRun('days');
    const question = await run.asked();
    run.cancel();
    expect(pendingInterrupts(run.runId())).toEqual([]);
    expect(() => answerInterrupt(run.runId(), question.interruptId, 3)).toThrow(InterruptNotFoundError);
    await waitUntil('no key of the cancelled call is left', async () => (await redis.scan('0', 'MATCH', `${prefix}:call:*`, 'COUNT', 10_000))[1].length === 0);
  });

  it('opens the question again when the worker’s asker refuses an answer the caller could not check', async () => {
    await startWorker();
    const run = startRun('code');
    const question = await run.asked();
    // The rule (a refinement) is not in the question's JSON Schema: the caller takes the answer, the worker refuses it.
    answerInterrupt(run.runId(), question.interruptId, 'nope');
    await waitUntil('the worker refused the answer', () => run.events.some((event) => event.type === 'custom' && event.name === 'interrupt-answer-refused'));
    expect(run.events.find((event) => event.type === 'custom' && event.name === 'interrupt-answer-refused')).toMatchObject({ data: { interruptId: question.interruptId, issues: [{ rule: 'must start with ok-' }] } });
    expect((await run.asked()).interruptId).toBe(question.interruptId);
    answerInterrupt(run.runId(), question.interruptId, 'ok-7');
    expect(outputOf(await run.ended)).toBe('Code ok-7');
  });

  it('closes the question of a worker lost while it asked: the worker that runs the call again asks again, and that question is answered', async () => {
    const workers = [await startWorker(), await startWorker()];
    const run = startRun('days');
    const first = await run.asked();
    const [askerPid] = await redis.lrange(`${prefix}:test:askers`, 0, -1);
    const lost = workers.find((worker) => String(worker.pid) === askerPid);
    expect(lost).toBeDefined();
    await killProcess(lost as ChildProcess, 'SIGKILL');

    const again = await run.asked(first.interruptId);
    expect(pendingInterrupts(run.runId()).map((open) => open.interruptId)).toEqual([again.interruptId]);
    expect(() => answerInterrupt(run.runId(), first.interruptId, 2)).toThrow(InterruptNotFoundError);
    answerInterrupt(run.runId(), again.interruptId, 2);
    const events = await run.ended;
    expect(outputOf(events)).toBe('A 2-day plan');
    expect(events.filter((event) => event.type === 'custom' && event.name === 'call-restarted')).toHaveLength(1);
    expect(pendingInterrupts(run.runId())).toEqual([]);
  });
});
