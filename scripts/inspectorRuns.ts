import { asyncScheduler, concatMap, from, lastValueFrom, type Observable, type SchedulerAction, type SchedulerLike, Subscription } from 'rxjs';
import { AgentError, invoke$, observeRun, type RunEvent, type RunStore } from '@rxagents/core';
import { ChoreographyEngine, ChoreographySpec } from '@rxagents/choreography';
import { DefaultHandoff, HandoffChain, HandoffContext } from '@rxagents/handoff';
import { Patterns } from '@rxagents/patterns';
import { failingAgent, scriptedAgent, type ScriptedAgent } from '@rxagents/testing';

// The runs the inspector's tests, its screenshots and `pnpm inspect` (without a store) show: a debate
// over a channel (metrics), an article choreography, a handoff chain, and a run that fails. Their
// scripted agents stream word by word on a scheduler the caller picks: `asyncScheduler` paces them by
// `wordMs`, a `HeldScheduler` holds every word until the caller releases it.

/** A scheduler whose actions wait, whatever their delay, until `release` lets them run (on `asyncScheduler`). */
export class HeldScheduler implements SchedulerLike {
  private readonly held: { readonly run: () => void; readonly outer: Subscription }[] = [];

  now(): number {
    return asyncScheduler.now();
  }

  schedule<T>(work: (this: SchedulerAction<T>, state?: T) => void, _delay?: number, state?: T): Subscription {
    const outer = new Subscription();
    this.held.push({ outer, run: () => outer.add(asyncScheduler.schedule(work, 0, state)) });
    return outer;
  }

  /** Lets up to `count` held actions run (the oldest first); how many it let run. */
  release(count = 1): number {
    let released = 0;
    while (released < count && this.held.length > 0) {
      const next = this.held.splice(0, 1)[0]!;
      if (next.outer.closed) continue;
      next.run();
      released++;
    }
    return released;
  }
}

/** How the sample agents stream: one word per `wordMs` on `scheduler`. */
export interface Pace {
  readonly scheduler: SchedulerLike;
  readonly wordMs: number;
}

const realTime = (wordMs = 60): Pace => ({ scheduler: asyncScheduler, wordMs });

const speaker = (id: string, lines: readonly string[], pace: Pace): ScriptedAgent => {
  let turn = 0;
  return scriptedAgent(id, () => ({ chunks: (lines[turn++ % lines.length] ?? '').match(/\S+\s*/g) ?? [], delay: pace.wordMs, interval: pace.wordMs }), { scheduler: pace.scheduler });
};

/** A three-round debate between an optimist and a skeptic over a channel (its metrics sampled). */
export function debateEvents(pace: Pace = realTime()): Observable<RunEvent> {
  const optimist = speaker('optimist', ['Agents that coordinate need no boss at all.', 'A shared channel is the only contract they need.', 'So: channels first, bosses never.'], pace);
  const skeptic = speaker('skeptic', ['Without a boss, who stops a runaway loop?', 'Detectors can stop loops, granted, if someone reads them.', 'Agreed, with a detector on every channel.'], pace);
  return Patterns.debate({ agents: [optimist, skeptic], maxRounds: 3 }).overChannel({ id: 'debate' }).events$('Do agents need a boss?');
}

/** The article choreography: research, then draft, then review, each triggered by the previous one's event. */
export function choreographyEvents(pace: Pace = realTime()): Observable<RunEvent> {
  const spec = ChoreographySpec.builder('article')
    .initialEvent('start')
    .interaction('research', 'system', 'researcher', 'start', 'researched', 'Collect sources on agent coordination')
    .interaction('draft', 'researcher', 'writer', 'researched', 'drafted', 'Write a draft from the research')
    .interaction('review', 'writer', 'reviewer', 'drafted', null, 'Review the draft')
    .build();
  const agents = {
    researcher: speaker('researcher', ['Three sources: the RxJS docs, XState, Effect.'], pace),
    writer: speaker('writer', ['Agents that coordinate without a boss: a draft in four short paragraphs.'], pace),
    reviewer: speaker('reviewer', ['Approved, ship it.'], pace),
  };
  return ChoreographyEngine.builder().spec(spec).agents(agents).timeout(60_000).build().events$({ input: 'Agents without a boss' });
}

/** An invoice handed along a chain: intake, extractor, writer (a `handoff` event between each). */
export function handoffEvents(pace: Pace = realTime()): Observable<RunEvent> {
  const chain = HandoffChain.builder()
    .add(speaker('intake', ['Received invoice 42.'], pace))
    .add(speaker('extractor', ['amount=120 EUR; due=2026-12-01'], pace))
    .add(speaker('writer', ['Dear customer, your invoice of 120 EUR is due on 1 December.'], pace))
    .build();
  return chain.events$(new DefaultHandoff({ timeout: 60_000 }), new HandoffContext({ taskId: 'invoice-42', payload: { document: 'Rechnung Nr. 42' } }));
}

/** A refund whose payment agent fails after triage answered: the run ends failed with the agent's error. */
export function failedEvents(pace: Pace = realTime()): Observable<RunEvent> {
  const triage = speaker('triage', ['A refund for order 7, to payments.'], pace);
  const payments = failingAgent('payments', new Error('The card processor refused the refund'), { mode: 'error', delay: pace.wordMs * 3, scheduler: pace.scheduler });
  return observeRun('refund', 'Refund order 7', (run) => invoke$(triage, 'Refund order 7', { run }).pipe(concatMap((plan) => invoke$(payments, plan, { run }))));
}

/** Writes a run's events into `store` as they happen (its journal); resolves with its run id once it ended, failed or not. */
export function journal(store: RunStore, events$: Observable<RunEvent>): { readonly runId: Promise<string>; readonly done: Promise<void> } {
  let named: (runId: string) => void = () => undefined;
  const runId = new Promise<string>((resolve) => (named = resolve));
  const done = lastValueFrom(
    events$.pipe(
      concatMap((event) => {
        named(event.runId);
        return from(store.append(event.runId, [event]));
      }),
    ),
    { defaultValue: undefined },
  ).then(() => undefined);
  return { runId, done };
}
