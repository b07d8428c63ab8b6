import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { defineAgent, type RunEvent } from '@rxagents/core';
import { traceToOpenTelemetry } from '@rxagents/otel';
import { Patterns } from '@rxagents/patterns';
import { map, type Observable, timer } from 'rxjs';
import type { BenchFigure, BenchSuite } from '../BenchSuite';
import { median } from '../median';

/** Two debaters, 500 rounds: 1,000 agent calls. */
const ROUNDS = 500;
const TIMINGS = 5;
const WARM_UPS = 1;

/** A debater that answers after 1 ms, as the slowest part of a call (a model) would, much faster than any model. */
const debater = (id: string) => defineAgent(id, () => timer(1).pipe(map(() => `${id} agrees`)));

/** Subscribes to a run's events and resolves once they complete, with how many arrived. */
function drain(events$: Observable<RunEvent>): Promise<number> {
  return new Promise((resolve, reject) => {
    let seen = 0;
    events$.subscribe({ next: () => void (seen += 1), error: reject, complete: () => resolve(seen) });
  });
}

export const suite: BenchSuite = {
  name: 'otel',
  async run(log) {
    const exporter = new InMemorySpanExporter();
    const tracer = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }).getTracer('bench');
    const debate = Patterns.debate({ agents: [debater('optimist'), debater('skeptic')], maxRounds: ROUNDS });
    const plain = () => drain(debate.events$('Ship on Friday?'));
    const traced = async () => {
      exporter.reset();
      const events = await drain(debate.events$('Ship on Friday?').pipe(traceToOpenTelemetry({ tracer })));
      const spans = exporter.getFinishedSpans().length;
      if (spans !== ROUNDS * 2 + 1) throw new Error(`expected ${ROUNDS * 2 + 1} spans, got ${spans}`);
      return events;
    };
    const [plainEvents, tracedEvents] = [await plain(), await traced()];
    if (plainEvents !== tracedEvents) throw new Error(`traced run passed ${tracedEvents} events, the plain one ${plainEvents}`);
    for (let i = 0; i < WARM_UPS; i += 1) {
      await plain();
      await traced();
    }
    const plainTimes: number[] = [];
    const tracedTimes: number[] = [];
    for (let round = 0; round < TIMINGS; round += 1) {
      for (const [run, times] of [[plain, plainTimes], [traced, tracedTimes]] as const) {
        const start = process.hrtime.bigint();
        await run();
        times.push(Number(process.hrtime.bigint() - start) / 1e9);
      }
    }
    const [plainS, tracedS] = [median(plainTimes), median(tracedTimes)];
    log(`a ${(ROUNDS * 2).toLocaleString('en')}-call debate (agents answer after 1 ms, ${plainEvents.toLocaleString('en')} events): ${(plainS * 1000).toFixed(0)} ms untraced, ${(tracedS * 1000).toFixed(0)} ms traced (${(ROUNDS * 2 + 1).toLocaleString('en')} spans to the in-memory exporter)`);
    const figures: Record<string, BenchFigure> = {
      tracingOverhead: {
        value: tracedS / plainS,
        label: `time of a ${(ROUNDS * 2).toLocaleString('en')}-call debate traced to the SDK's in-memory exporter / the same run untraced`,
        bar: { op: '<=', limit: 1.1 },
      },
    };
    return figures;
  },
};
