import * as configRules from '../../configRules';
import { ConfigError } from '../../errors/ConfigError';
import { safeParseRunEvent } from '../../events/safeParseRunEvent';
import { parseConfig } from '../../parseConfig';

// The checks of a file store's arguments, each a ConfigError naming what was wrong.

export function checkRunId(runId: unknown, operation: string): void {
  if (typeof runId !== 'string' || runId.trim() === '') throw new ConfigError(`FileRunStore.${operation}`, [{ path: 'runId', rule: 'must be a non-blank string', received: runId }]);
}

export function checkEvents(events: unknown): void {
  if (!Array.isArray(events)) throw new ConfigError('FileRunStore.append', [{ path: 'events', rule: 'must be an array of run events', received: events }]);
  events.forEach((event, index) => {
    const checked = safeParseRunEvent(event);
    if (!checked.success) {
      const issue = checked.error.issues[0];
      throw new ConfigError('FileRunStore.append', [{ path: [`events[${index}]`, ...(issue?.path ?? []).map(String)].join('.'), rule: issue?.message ?? 'must be a run event', received: event }]);
    }
  });
}

export function checkTtl(ttlMs: unknown, operation: string): void {
  parseConfig(configRules.timeoutMs(), ttlMs, `FileRunStore.${operation} ttlMs`);
}
