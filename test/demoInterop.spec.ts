import { scene } from '../examples/src/scenes/10-interop';

// `pnpm demo interop`: the A2A SDK's own server serves the skeptic, the MCP SDK's own client calls the debate.
jest.setTimeout(60_000);

it('pnpm demo interop: the MCP client hears both debaters, the skeptic over A2A, and gets the transcript', async () => {
  const lines: string[] = [];
  const log = jest.spyOn(console, 'log').mockImplementation((...args: unknown[]) => void lines.push(args.join(' ')));
  try {
    await scene.run();
  } finally {
    log.mockRestore();
  }
  const printed = lines.join('\n');
  expect(printed).toMatch(/MCP client lists: debate \(/);
  expect(printed).toMatch(/MCP client heard \d+ characters of the debate as progress/);
  expect(printed).toContain('skeptic: If the pipeline and the rollback are tested, Friday is fine.');
  expect(printed).toContain('optimist: Agreed: tested rollback, then ship.');
});
