import { FileRunStore } from '@rxagents/core/file-store';
import { startChainChild } from './support/chainChild';
import { freshDirectories } from './support/freshDirectories';
import { GAP_LEASE_TTL_MS, itKeepsQuestionIdsAcrossAKill } from './support/interruptGap';

jest.setTimeout(90_000);

const SCRIPT = 'packages/core/test/support/approvalGapProcess.ts';
const RUN_ID = 'bill-1';

const freshDirectory = freshDirectories('rxagents-interrupt-gap-');

describe('a question of a process SIGKILLed around its journaling, on the file store', () => {
  itKeepsQuestionIdsAcrossAKill(async () => {
    const directory = await freshDirectory();
    return {
      store: new FileRunStore({ directory, onTornRecord: () => undefined }),
      runId: RUN_ID,
      scratch: directory,
      start: (gate, killWhen) => startChainChild(SCRIPT, { DIRECTORY: directory, RUN_ID, LEASE_TTL_MS: String(GAP_LEASE_TTL_MS), GATE: gate }, killWhen),
    };
  });
});
