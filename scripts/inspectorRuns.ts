import { asyncScheduler, concat, concatMap, defer, from, lastValueFrom, map, mergeMap, type Observable, type SchedulerAction, type SchedulerLike, Subscription, timer } from 'rxjs';
import { AgentError, askForApproval, defineAgent, invoke$, MemoryRunStore, observeRun, type RunContext, type RunEvent, type RunStore } from '@rxagents/core';
import { ChoreographyEngine, ChoreographySpec } from '@rxagents/choreography';
import { DefaultHandoff, HandoffChain, HandoffContext } from '@rxagents/handoff';
import { Patterns } from '@rxagents/patterns';
import { failingAgent, scriptedAgent, type ScriptedAgent } from '@rxagents/testing';

// The runs the inspector's tests, its screenshots and `pnpm inspect` (without a store) show: a debate
// over a channel (metrics), an article choreography, a handoff chain, a run that fails, and a durable run
// resumed after its process stopped mid-call; and, in the
// tests and screenshots, a handoff chain whose last agent waits for a person's approval. Their
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

/**
 * A refund handed from triage to billing, whose billing agent says what it found, then asks a person to
 * approve the refund (an `interrupt` of kind `approval` under its call): the run waits until someone
 * answers it (`answerInterrupt`), then billing says what it did.
 */
export function approvalEvents(pace: Pace = realTime()): Observable<RunEvent> {
  const words = (text: string): Observable<string> => from(text.match(/\S+\s*/g) ?? []).pipe(concatMap((word) => timer(pace.wordMs, pace.scheduler).pipe(map(() => word))));
  const billing = defineAgent('billing', (_input, { run }) =>
    concat(
      words('Order 7 was paid by card: 120 EUR, over the 100 EUR a refund may be without approval. '),
      defer(() => askForApproval(run, 'refund', { order: 7, amount: 120 }, { question: 'Refund 120 EUR to the card that paid order 7?' })).pipe(map((decision) => (decision.approved ? 'Refunded.' : 'Not refunded.'))),
    ),
  );
  const chain = HandoffChain.builder().add(speaker('triage', ['A refund for order 7, to billing.'], pace)).add(billing).build();
  // The handoff's timeout covers billing's call, the wait for the person included: ten minutes to answer.
  return chain.events$(new DefaultHandoff({ timeout: 600_000 }), new HandoffContext({ taskId: 'refund-7', payload: { order: 7, reason: 'The parcel never arrived' } }));
}

/** A refund whose payment agent fails after triage answered: the run ends failed with the agent's error. */
export function failedEvents(pace: Pace = realTime()): Observable<RunEvent> {
  const triage = speaker('triage', ['A refund for order 7, to payments.'], pace);
  const payments = failingAgent('payments', new Error('The card processor refused the refund'), { mode: 'error', delay: pace.wordMs * 3, scheduler: pace.scheduler });
  return observeRun('refund', 'Refund order 7', (run) => invoke$(triage, 'Refund order 7', { run }).pipe(concatMap((plan) => invoke$(payments, plan, { run }))));
}

/**
 * A durable refund run whose process stopped while its biller was answering, resumed by another: the
 * journal holds triage's answer and the biller's first words, the resumed run closes that call as
 * interrupted (`CALL_INTERRUPTED`) and the biller answers again as attempt 2 (`run/1#2`). The events are
 * the resumed run's: the journal first, then what it did.
 */
export function resumedEvents(pace: Pace = realTime()): Observable<RunEvent> {
  const runId = 'refund-resumed';
  const body = () => {
    const triage = speaker('triage', ['A refund for order 7, to billing.'], pace);
    const biller = speaker('biller', ['Refunded 120 EUR to the card that paid order 7.'], pace);
    return (run: RunContext) => invoke$(triage, 'Refund order 7', { run }).pipe(concatMap((plan) => invoke$(biller, plan, { run })));
  };
  return defer(async () => {
    const first = new MemoryRunStore({ scheduler: pace.scheduler });
    await lastValueFrom(observeRun('refund', 'Refund order 7', body(), { store: first, runId, scheduler: pace.scheduler }), { defaultValue: undefined });
    const journal: RunEvent[] = [];
    for await (const record of first.read(runId)) journal.push(record.event);
    // The process stopped after the biller's second word was journaled.
    const billerDeltas = journal.flatMap((event, index) => (event.type === 'text-delta' && event.agentId === 'biller' ? [index] : []));
    const second = new MemoryRunStore({ scheduler: pace.scheduler });
    await second.append(runId, journal.slice(0, (billerDeltas[1] ?? journal.length - 1) + 1));
    return observeRun('refund', 'Refund order 7', body(), { store: second, runId, scheduler: pace.scheduler });
  }).pipe(mergeMap((events$) => events$));
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
