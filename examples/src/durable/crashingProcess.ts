// The process the durable scene SIGKILLs: runs the debate journaled to the file store in the directory
// given as its argument, and prints one line per agent call start and text delta for the scene to watch.
import { FileRunStore } from '@rxagents/core/file-store';
import { durableDebate, durableRunId } from './durableDebate';

const directory = process.argv[2];
if (directory === undefined) throw new Error('usage: crashingProcess.ts <directory>');
durableDebate()
  .events$(new FileRunStore({ directory }), durableRunId)
  .subscribe((event) => {
    if (event.type === 'call-start' || event.type === 'text-delta') console.log(JSON.stringify({ type: event.type, agentId: event.agentId }));
  });
