import * as z from 'zod';
import type { RunLeaseHolder } from '../RunStore';
import { exists, readIfExists } from './fileOps';

// The small files beside a journal: its lease and its delete-at time. Both are replaced atomically, and
// read back through a schema: they come from disk. `null` stands for Infinity, which JSON cannot hold.

const LeaseFileSchema = z.strictObject({
  runId: z.string(),
  // null once released: the file stays, so the run's next lease has a higher epoch.
  token: z.string().nullable(),
  epoch: z.number().int().positive(),
  expiresAt: z.number().nullable(),
  host: z.string().optional(),
  pid: z.number().int().optional(),
  owner: z.string().optional(),
});
const ExpireFileSchema = z.strictObject({ deleteAt: z.number().nullable() });

/** A lease as its file holds it. */
export interface HeldLease {
  /** The holder's token; `undefined` once the lease was released. */
  readonly token: string | undefined;
  readonly epoch: number;
  readonly expiresAt: number;
  readonly holder: RunLeaseHolder;
}

const finite = (value: number | null): number => (value === null ? Infinity : value);

/** The text of a lease file. */
export function leaseText(runId: string, lease: HeldLease): string {
  const { host, pid, owner } = lease.holder;
  return JSON.stringify({ runId, token: lease.token ?? null, epoch: lease.epoch, expiresAt: Number.isFinite(lease.expiresAt) ? lease.expiresAt : null, host, pid, owner });
}

/** The lease in `path`, or `undefined` when there is none. */
export async function readLease(path: string): Promise<HeldLease | undefined> {
  const text = await readIfExists(path);
  if (text === undefined) return undefined;
  const parsed = LeaseFileSchema.safeParse(parseJson(text));
  if (!parsed.success) throw new Error(`the lease file ${path} is not a lease`);
  const { token, epoch, expiresAt, host, pid, owner } = parsed.data;
  const holder: RunLeaseHolder = { ...(host === undefined ? {} : { host }), ...(pid === undefined ? {} : { pid }), ...(owner === undefined ? {} : { owner }) };
  return { token: token ?? undefined, epoch, expiresAt: finite(expiresAt), holder };
}

/** The text of an expire file. */
export function expireText(deleteAt: number): string {
  return JSON.stringify({ deleteAt: Number.isFinite(deleteAt) ? deleteAt : null });
}

/** When the run in `path`'s expire file is deleted: `Infinity` when it has none. */
export async function readDeleteAt(path: string): Promise<number> {
  // Most runs have no expire file: one stat finds that out, where reading would take several steps.
  if (!(await exists(path))) return Infinity;
  const text = await readIfExists(path);
  if (text === undefined) return Infinity;
  const parsed = ExpireFileSchema.safeParse(parseJson(text));
  if (!parsed.success) throw new Error(`the expire file ${path} does not hold a delete-at time`);
  return finite(parsed.data.deleteAt);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
