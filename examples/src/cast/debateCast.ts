import type { Agent } from '@rxagents/core';
import { scriptedAgent } from '@rxagents/testing';
import { liveAgent } from '../liveModels';

/** The scripted debaters' lines on the default topic, by debater, one per round. */
const monolithLines: Record<string, readonly string[]> = {
  architect: [
    'Split the monolith: billing first, it changes weekly.',
    'Agreed on one service, then measure before the next.',
    'Then we agree: extract billing, keep the rest, review in a quarter.',
  ],
  operator: [
    'Every new service is a pager. Fix the deploy pipeline first.',
    'One service is fine if it ships through the same pipeline.',
    'Yes: billing only, same pipeline, revisit in Q3.',
  ],
  accountant: [
    'Billing bugs cost us most. Isolate it, cap the spend.',
    'A single extraction fits the budget; two would not.',
    'Signed off: billing alone, budget capped.',
  ],
};

/** The question the debaters argue about unless given another. */
export const debateTopic = 'Should we split the monolith this year?';

/** The scripted debaters' lines on any other topic: the same arc (positions, a compromise, a sign-off), about that topic. */
function linesOn(topic: string): Record<string, readonly string[]> {
  return {
    architect: [`On "${topic}": start with the smallest step we can undo.`, 'Agreed on one step, then measure before the next.', `Then we agree: one small step on "${topic}", review in a quarter.`],
    operator: [`Whatever we do about "${topic}" ships through the pipeline we have.`, 'One step is fine if it ships through the same pipeline.', 'Yes: one step, same pipeline, revisit in Q3.'],
    accountant: [`"${topic}" has to fit this year's budget.`, 'A single step fits the budget; two would not.', `Signed off: one step on "${topic}", budget capped.`],
  };
}

/**
 * The architecture debate's cast: three debaters and a judge, scripted (each streams its line on `topic`
 * word by word, one word per `wordMs` or so) or, with `OPENAI_BASE_URL` set, real models (docs/llm.md).
 */
export function debateCast(wordMs = 40, topic = debateTopic): { readonly debaters: readonly Agent[]; readonly judge: Agent } {
  const lines = topic === debateTopic ? monolithLines : linesOn(topic);
  const verdict = topic === debateTopic ? 'CONVERGED: extract billing only, same pipeline, capped budget.' : `CONVERGED: one step on "${topic}", same pipeline, capped budget.`;
  const debater = (id: string, interval: number): Agent =>
    liveAgent(
      scriptedAgent(id, (prompt) => ({ chunks: words(lines[id]?.[Number(/Round (\d+)/.exec(prompt)?.[1] ?? 1) - 1] ?? '(nothing more)'), delay: interval, interval }), {
        role: `the ${id} in an architecture debate`,
      }),
    );
  const judge = liveAgent(
    scriptedAgent('judge', (prompt) =>
      /Signed off/.test(prompt)
        ? { chunks: words(verdict), delay: wordMs, interval: wordMs }
        : { chunks: words('CONTINUE: positions still differ.'), delay: wordMs, interval: wordMs },
    ),
    { system: 'You judge a debate. Reply "CONVERGED: <the agreed position>" once the debaters agree, else "CONTINUE: <what still differs>".' },
  );
  const scaled = (ms: number): number => Math.round((ms * wordMs) / 40);
  return { debaters: [debater('architect', scaled(45)), debater('operator', scaled(35)), debater('accountant', scaled(40))], judge };
}

/** A reply as the tokens a model would stream: words with their trailing space. */
export function words(text: string): string[] {
  return text.match(/\S+\s*/g) ?? [];
}
