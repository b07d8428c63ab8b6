import { randomUUID } from 'node:crypto';
import { RedisRunStore } from '../src';
import { startChainChild } from '../../core/test/support/chainChild';
import { freshDirectories } from '../../core/test/support/freshDirectories';
import { GAP_LEASE_TTL_MS, itKeepsQuestionIdsAcrossAKill } from '../../core/test/support/interruptGap';
import { describeRedis } from './support/describeRedis';

jest.setTimeout(90_000);

const SCRIPT = 'packages/redis/test/support/approvalGapProcess.ts';
const RUN_ID = 'bill-1';

const freshDirectory = freshDirectories('rxagents-redis-interrupt-gap-');

describeRedis('a question of a process SIGKILLed around its journaling, on the Redis store', (server) => {
  itKeepsQuestionIdsAcrossAKill(async () => {
    const prefix = `gap-${randomUUID()}`;
    return {
      store: new RedisRunStore(server().client(), { prefix }),
      runId: RUN_ID,
      scratch: await freshDirectory(),
      start: (gate, killWhen) => startChainChild(SCRIPT, { REDIS_PORT: String(server().port), PREFIX: prefix, RUN_ID, LEASE_TTL_MS: String(GAP_LEASE_TTL_MS), GATE: gate }, killWhen),
    };
  });
});
