import { defineAgent } from '@rxagents/core';
import { ChoreographyEngine, type ChoreographyEvent, type ChoreographyResult, ChoreographySpec } from '@rxagents/choreography';
import { scriptedAgent } from '@rxagents/testing';
import { of } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { step } from './fixtures';

const newScheduler = () => new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
const silent = { warn: jest.fn() };

const articleSpec = () =>
  ChoreographySpec.builder('article')
    .initialEvent('start')
    .interaction('research', 'system', 'researcher', 'start', 'researched', 'Collect sources on agent coordination')
    .interaction('draft', 'researcher', 'writer', 'researched', 'drafted', 'Write a draft from the research')
    .interaction('review', 'writer', 'reviewer', 'drafted', null, 'Review the draft')
    .build();


describe('ChoreographyEngine: the article example', () => {
  it('runs research -> draft -> review on virtual time; only targets run', () => {
    newScheduler().run(({ expectObservable, flush }) => {
      const researcher = scriptedAgent('researcher', { reply: 'three sources', delay: 10 });
      const writer = scriptedAgent('writer', { reply: 'a draft', delay: 20 });
      const reviewer = scriptedAgent('reviewer', { reply: 'approved', delay: 5 });
      const system = scriptedAgent('system', 'never called');
      const engine = ChoreographyEngine.builder()
        .spec(articleSpec())
        .agent('researcher', researcher)
        .agents({ writer, system })
        .agents(new Map([['reviewer', reviewer]]))
        .logger(silent)
        .build();

      expectObservable(engine.steps$).toBe('10ms a 19ms b 4ms (c|)', {
        a: step('research', 'researcher', 'Collect sources on agent coordination', 'three sources', 0, 10),
        b: step('draft', 'writer', 'Write a draft from the research\n\nContext: three sources', 'a draft', 10, 20),
        c: step('review', 'reviewer', 'Review the draft\n\nContext: a draft', 'approved', 30, 5),
      });
      expectObservable(engine.execute$()).toBe('35ms (r|)', {
        r: {
          success: true,
          stepResults: [step('research', 'researcher', 'Collect sources on agent coordination', 'three sources', 0, 10), step('draft', 'writer', 'Write a draft from the research\n\nContext: three sources', 'a draft', 10, 20), step('review', 'reviewer', 'Review the draft\n\nContext: a draft', 'approved', 30, 5)],
          totalDurationMs: 35,
          completedCount: 3,
          failedCount: 0,
          timedOut: false,
          pending: [],
        } satisfies ChoreographyResult,
      });
      flush();
      expect(system.inputs).toEqual([]);
      expect([researcher, writer, reviewer].map((agent) => agent.inputs.length)).toEqual([1, 1, 1]);
    });
  });

  it('composes each input as the task, then "Context: <output>" of the triggering event', () => {
    newScheduler().run(({ flush }) => {
      const researcher = scriptedAgent('researcher', { reply: 'three sources', delay: 10 });
      const writer = scriptedAgent('writer', { reply: 'a draft', delay: 20 });
      const reviewer = scriptedAgent('reviewer', 'approved');
      const engine = ChoreographyEngine.builder().spec(articleSpec()).agents({ researcher, writer, reviewer }).logger(silent).build();
      engine.execute$().subscribe();
      flush();
      expect(researcher.inputs).toEqual(['Collect sources on agent coordination']);
      expect(writer.inputs).toEqual(['Write a draft from the research\n\nContext: three sources']);
      expect(reviewer.inputs).toEqual(['Review the draft\n\nContext: a draft']);
    });
  });

  it('publishes every event on busEvents$, with the output and who emitted it', () => {
    newScheduler().run(({ expectObservable }) => {
      const engine = ChoreographyEngine.builder()
        .spec(articleSpec())
        .agents({ researcher: scriptedAgent('r', { reply: 'R', delay: 1 }), writer: scriptedAgent('w', { reply: 'W', delay: 1 }), reviewer: scriptedAgent('v', 'V') })
        .logger(silent)
        .build();
      expectObservable(engine.busEvents$).toBe('s a (b|)', {
        s: { name: 'start' },
        a: { name: 'researched', output: 'R', interactionId: 'research', agentId: 'researcher' },
        b: { name: 'drafted', output: 'W', interactionId: 'draft', agentId: 'writer' },
      } satisfies Record<string, ChoreographyEvent>);
      expectObservable(engine.execute$()).toBe('--(r|)', { r: expect.objectContaining({ success: true, completedCount: 3 }) });
    });
  });
});

describe('ChoreographyEngine: concurrency, AND-join, once', () => {
  it('runs a fan-out concurrently: three 100 ms interactions finish at 100 ms', () => {
    newScheduler().run(({ expectObservable }) => {
      const spec = ChoreographySpec.builder('fan')
        .initialEvent('go')
        .interaction('a', 'hub', 'A', 'go', null, 'Task A')
        .interaction('b', 'hub', 'B', 'go', null, 'Task B')
        .interaction('c', 'hub', 'C', 'go', null, 'Task C')
        .build();
      const agent = (id: string) => scriptedAgent(id, { reply: id, delay: 100 });
      const engine = ChoreographyEngine.builder().spec(spec).agents({ A: agent('A'), B: agent('B'), C: agent('C') }).logger(silent).build();
      expectObservable(engine.steps$).toBe('100ms (abc|)', { a: step('a', 'A', 'Task A', 'A', 0, 100), b: step('b', 'B', 'Task B', 'B', 0, 100), c: step('c', 'C', 'Task C', 'C', 0, 100) });
      expectObservable(engine.execute$()).toBe('100ms (r|)', { r: expect.objectContaining({ totalDurationMs: 100, completedCount: 3 }) });
    });
  });

  it('an AND-join waits for every trigger and carries each trigger output in its context', () => {
    newScheduler().run(({ expectObservable, flush }) => {
      const spec = ChoreographySpec.builder('launch')
        .initialEvent('start')
        .interaction('design', 'pm', 'designer', 'start', 'designed', 'Design the page')
        .interaction('copy', 'pm', 'copywriter', 'start', 'written', 'Write the copy')
        .interaction({ id: 'ship', source: 'designer', target: 'developer', trigger: ['designed', 'written'], emits: null, task: 'Build the page' })
        .build();
      const developer = scriptedAgent('developer', { reply: 'shipped', delay: 5 });
      const engine = ChoreographyEngine.builder()
        .spec(spec)
        .agents({ designer: scriptedAgent('d', { reply: 'mockup', delay: 30 }), copywriter: scriptedAgent('c', { reply: 'headline', delay: 10 }), developer })
        .logger(silent)
        .build();
      expectObservable(engine.steps$).toBe('10ms c 19ms d 4ms (s|)', {
        c: step('copy', 'copywriter', 'Write the copy', 'headline', 0, 10),
        d: step('design', 'designer', 'Design the page', 'mockup', 0, 30),
        s: step('ship', 'developer', 'Build the page\n\nContext (designed): mockup\n\nContext (written): headline', 'shipped', 30, 5),
      });
      expectObservable(engine.execute$()).toBe('35ms (r|)', { r: expect.objectContaining({ success: true, completedCount: 3 }) });
      flush();
      expect(developer.inputs).toEqual(['Build the page\n\nContext (designed): mockup\n\nContext (written): headline']);
    });
  });

  it('runs each interaction at most once, even when its trigger is published twice', () => {
    newScheduler().run(({ expectObservable, flush }) => {
      const spec = ChoreographySpec.builder('twice')
        .initialEvent('go')
        .interaction('a', 's', 'A', 'go', 'done', 'A')
        .interaction('b', 's', 'B', 'go', 'done', 'B')
        .interaction('final', 's', 'F', 'done', null, 'Finish')
        .build();
      const finisher = scriptedAgent('F', 'ok');
      const engine = ChoreographyEngine.builder()
        .spec(spec)
        .agents({ A: scriptedAgent('A', { reply: 'first', delay: 1 }), B: scriptedAgent('B', { reply: 'second', delay: 2 }), F: finisher })
        .logger(silent)
        .build();
      expectObservable(engine.execute$()).toBe('--(r|)', { r: expect.objectContaining({ completedCount: 3, pending: [] }) });
      flush();
      expect(finisher.inputs).toEqual(['Finish\n\nContext: first']);
    });
  });

  it('a self-triggering interaction runs once, and its cycle is logged as a warning before running', () => {
    newScheduler().run(({ expectObservable, flush }) => {
      const spec = ChoreographySpec.builder('loop').initialEvent('tick').interaction('loop', 'looper', 'looper', 'tick', 'tick', 'Again').build();
      const looper = scriptedAgent('looper', { reply: 'again', delay: 1 });
      const logger = { warn: jest.fn() };
      const engine = ChoreographyEngine.builder().spec(spec).agent('looper', looper).logger(logger).build();
      expectObservable(engine.execute$()).toBe('-(r|)', { r: expect.objectContaining({ success: true, completedCount: 1 }) });
      flush();
      expect(looper.inputs).toEqual(['Again']);
      expect(logger.warn).toHaveBeenCalledTimes(1);
      expect(logger.warn.mock.calls[0][0]).toContain('looper -> looper');
    });
  });

  it('warns on a two-agent cycle and still runs; an acyclic spec logs nothing; console is the default logger', async () => {
    const spec = ChoreographySpec.builder('ping-pong')
      .initialEvent('go')
      .interaction('ping', 'a', 'b', 'go', 'pinged', 'Ping')
      .interaction('pong', 'b', 'a', 'pinged', null, 'Pong')
      .build();
    const warn = jest.spyOn(console, 'warn').mockImplementation(() => undefined);
    try {
      const engine = ChoreographyEngine.builder().spec(spec).agents({ a: defineAgent('a', async () => 'pong'), b: defineAgent('b', async () => 'ping') }).build();
      const result = await engine.execute();
      expect(result.completedCount).toBe(2);
      expect(warn).toHaveBeenCalledWith(expect.stringContaining('possible deadlock): a -> b -> a'));
      warn.mockClear();
      await ChoreographyEngine.builder().spec(articleSpec()).agents({ researcher: defineAgent('r', async () => 'r'), writer: defineAgent('w', async () => 'w'), reviewer: defineAgent('v', async () => 'v') }).build().execute();
      expect(warn).not.toHaveBeenCalled();
    } finally {
      warn.mockRestore();
    }
  });

  it('runs a 20,000-interaction chain of synchronous agents without overflowing the stack', async () => {
    let builder = ChoreographySpec.builder('long').initialEvent('e0');
    for (let i = 0; i < 20_000; i += 1) builder = builder.interaction(`i${i}`, `a${i}`, 'instant', `e${i}`, `e${i + 1}`, 'Go');
    const engine = ChoreographyEngine.builder().spec(builder.build()).agent('instant', defineAgent('instant', () => of('x'))).logger(silent).build();
    const result = await engine.execute();
    expect(result.completedCount).toBe(20_000);
    expect(result.pending).toEqual([]);
  });
});
