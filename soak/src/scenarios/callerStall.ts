import type { SoakScenario } from '../SoakScenario'; export const callerStall: SoakScenario = { name: 'xcallerStall', run: async () => ({ figures: '', bound: '', within: 'skipped' }) };
