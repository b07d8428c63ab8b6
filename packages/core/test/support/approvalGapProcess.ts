// A process running the approval run on a FileRunStore in DIRECTORY (see approvalGapChild.ts).
// Env: DIRECTORY, RUN_ID, LEASE_TTL_MS, GATE.
import { FileRunStore } from '../../src/file-store';
import { runApprovalGapChild } from './approvalGapChild';

runApprovalGapChild(new FileRunStore({ directory: process.env['DIRECTORY'] ?? '', onTornRecord: () => undefined }));
