// The Node-only entry `@rxagents/core/file-store`: run stores on the file system. Kept out of the main
// entry so that browser bundles of `@rxagents/core` never reach `node:fs`.
export { FileRunStore } from './store/FileRunStore';
export { FileRunStoreOptionsSchema, type FileRunStoreOptions, type FileRunStoreDurability, type FileRunStoreReadStats, type TornRecordReport, type StaleRecordReport } from './store/FileRunStoreOptions';
