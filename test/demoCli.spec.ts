import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

// `pnpm demo` as a person types it: `--help` prints how to use it and the scenes, an unknown option is refused.

const root = join(__dirname, '..');
const demo = (...args: string[]) => spawnSync(process.execPath, ['--import', 'tsx', join(root, 'examples', 'src', 'main.ts'), ...args], { cwd: root, encoding: 'utf8', timeout: 60_000 });

jest.setTimeout(60_000);

describe('pnpm demo', () => {
  it('--help prints the usage and every scene, and runs none', () => {
    for (const flag of ['--help', '-h']) {
      const { status, stdout, stderr } = demo(flag);
      expect({ status, stderr }).toEqual({ status: 0, stderr: '' });
      expect(stdout).toContain('Usage: pnpm demo [scene ...]');
      expect(stdout).toMatch(/^ {2}patterns +a three-agent debate/m);
      expect(stdout).toMatch(/^ {2}web +.*\(named only\)$/m);
      expect(stdout).not.toContain('===');
    }
  });

  it('refuses an unknown option with the usage, and an unknown scene by name', () => {
    const option = demo('--fast');
    expect(option.status).toBe(2);
    expect(option.stderr).toContain('Unknown option: --fast');
    expect(option.stderr).toContain('Usage: pnpm demo');
    const scene = demo('nope');
    expect(scene.status).toBe(2);
    expect(scene.stderr).toContain('Unknown scene: nope');
  });
});
