import { reportUnhandledError } from '../../reportUnhandledError';
import type { StaleRecordReport, TornRecordReport } from '../FileRunStoreOptions';
import type { StaleAppend, TornEnd } from './JournalScan';

/** Hands dropped torn bytes to `onTorn`, or to a process warning (`RUN_JOURNAL_TORN`) without one. */
export function reportTorn(onTorn: ((report: TornRecordReport) => void) | undefined, runId: string, file: string, torn: TornEnd): void {
  const report: TornRecordReport = { runId, file, line: torn.line, bytes: torn.bytes };
  try {
    if (onTorn !== undefined) onTorn(report);
    else process.emitWarning(`Run journal ${file} holds an append a crash or a failed write cut short: ${torn.bytes} bytes from line ${torn.line} were dropped`, { code: 'RUN_JOURNAL_TORN' });
  } catch (error) {
    reportUnhandledError(error);
  }
}

/** Hands a skipped stale append to `onStale`, or to a process warning (`RUN_JOURNAL_STALE`) without one. */
export function reportStale(onStale: ((report: StaleRecordReport) => void) | undefined, runId: string, file: string, stale: StaleAppend): void {
  const report: StaleRecordReport = { runId, file, line: stale.line, records: stale.records, epoch: stale.epoch, currentEpoch: stale.currentEpoch };
  try {
    if (onStale !== undefined) onStale(report);
    else process.emitWarning(`Run journal ${file} holds ${stale.records} records from line ${stale.line} written under lease epoch ${stale.epoch} after epoch ${stale.currentEpoch} took the run over: skipped`, { code: 'RUN_JOURNAL_STALE' });
  } catch (error) {
    reportUnhandledError(error);
  }
}
