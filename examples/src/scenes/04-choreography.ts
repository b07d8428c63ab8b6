import { asyncScheduler } from 'rxjs';
import { ChoreographyEngine, ChoreographySpec, DeadlockDetector, LivelockDetector } from '@rxagents/choreography';
import { scriptedAgent } from '@rxagents/testing';
import { articleCast, articleSpec } from '../cast/articleCast';
import { liveModelsConfigured } from '../liveModels';
import type { Scene } from '../Scene';

/** research -> draft -> review printed as steps$ emits; then a spec with a cycle, warned about and run anyway. */
export const scene: Scene = {
  name: 'choreography',
  title: 'agents react to each other\'s events (ChoreographyEngine, DeadlockDetector, LivelockDetector)',
  async run() {
    const started = asyncScheduler.now();
    const stamp = (): string => `${String(asyncScheduler.now() - started).padStart(5)} ms`;

    console.log('1) The article: research -> draft -> review, each agent triggered by the previous one\'s event');
    // With OPENAI_BASE_URL set, the cast's scripted agents are real models (docs/llm.md).
    const { agents, writer } = articleCast();
    const engine = ChoreographyEngine.builder()
      .spec(articleSpec)
      .agents(agents)
      .timeout(liveModelsConfigured() ? 180_000 : 5_000)
      .build();
    engine.busEvents$.subscribe((event) => console.log(`${stamp()}  event   ${event.name}${event.agentId === undefined ? '' : ` (from ${event.agentId})`}`));
    engine.steps$.subscribe((step) =>
      console.log(`${stamp()}  step    ${step.interactionId} by ${step.agentId}: ${step.success ? JSON.stringify(step.output) : step.error.message} in ${step.durationMs} ms`),
    );
    const result = await engine.execute();
    if (!liveModelsConfigured()) console.log(`         the writer was sent: ${JSON.stringify(writer.inputs[0])}`);
    console.log(`         result: success=${result.success} completed=${result.completedCount} failed=${result.failedCount} timedOut=${result.timedOut} pending=[${result.pending.join(', ')}] total=${result.totalDurationMs} ms`);

    console.log('\n2) A review loop: editor -> writer -> editor is a cycle; the engine warns, then runs');
    const loop = ChoreographySpec.builder('review-loop')
      .initialEvent('start')
      .interaction('draft', 'editor', 'writer', 'start', 'drafted', 'Write a draft')
      .interaction('review', 'writer', 'editor', 'drafted', 'reviewed', 'Review the draft')
      .interaction('revise', 'editor', 'writer', 'reviewed', null, 'Revise the draft')
      .build();
    const { hasDeadlock, cycles } = DeadlockDetector.detect(loop);
    console.log(`         DeadlockDetector.detect: hasDeadlock=${hasDeadlock}, cycles=${JSON.stringify(cycles)}`);
    const looped = await ChoreographyEngine.builder()
      .spec(loop)
      .agents({ writer: scriptedAgent('writer', { reply: 'a draft', delay: 150 }), editor: scriptedAgent('editor', { reply: 'needs work', delay: 150 }) })
      .logger({ warn: (message: string) => console.log(`         WARN ${message}`) })
      .timeout(2_000)
      .build()
      .execute();
    console.log(`         ran anyway: ${looped.stepResults.map((step) => step.interactionId).join(' -> ')} (each interaction once), success=${looped.success}`);

    console.log('\n3) A planner stuck re-planning: LivelockDetector trips its circuit breaker');
    const detector = LivelockDetector.builder().repeatedMessageThreshold(3).oscillationThreshold(2).circuitBreakerThreshold(2).build();
    detector.addListener({
      onViolation: (violation) => console.log(`         ${violation.type}: ${violation.detail}`),
      onCircuitBreakerOpen: () => console.log('         circuit breaker OPEN: recording now throws until reset()'),
    });
    try {
      for (let round = 0; round < 10; round += 1) {
        detector.recordMessage('planner', 'Let me re-plan the trip.');
        detector.recordStateChange('planner', round % 2 === 0 ? 'planning' : 'replanning');
      }
    } catch (error) {
      console.log(`         stopped: ${(error as Error).message}`);
    }
  },
};
