import { ChoreographySpec } from '@rxagents/choreography';

/** One event, `start`, that triggers `width` interactions, each run by the agent "worker". */
export function fanOutSpec(width: number): ChoreographySpec {
  const builder = ChoreographySpec.builder(`fan-out-${width}`).initialEvent('start');
  for (let i = 0; i < width; i += 1) builder.interaction(`i${i}`, 'user', 'worker', 'start', null, `part ${i}`);
  return builder.build();
}
