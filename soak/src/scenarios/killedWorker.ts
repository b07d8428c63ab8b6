import type { SoakScenario } from '../SoakScenario'; export const killedWorker: SoakScenario = { name: 'xkilledWorker', run: async () => ({ figures: '', bound: '', within: 'skipped' }) };
