import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Scene } from './Scene';

// Scenes live in ./scenes, one file each, named NN-name.ts; they run in file-name order.
const scenesDir = join(dirname(fileURLToPath(import.meta.url)), 'scenes');

async function loadScenes(): Promise<Scene[]> {
  const files = readdirSync(scenesDir)
    .filter((file) => /^\d+-.+\.ts$/.test(file))
    .sort();
  const scenes: Scene[] = [];
  for (const file of files) {
    const module = (await import(pathToFileURL(join(scenesDir, file)).href)) as { scene?: Scene };
    if (module.scene === undefined) throw new Error(`examples/src/scenes/${file} does not export a "scene"`);
    scenes.push(module.scene);
  }
  return scenes;
}

function usage(scenes: readonly Scene[]): string {
  const width = Math.max(...scenes.map((scene) => scene.name.length));
  return [
    'Usage: pnpm demo [scene ...]',
    '',
    'Runs the tour: every scene below in order (those marked "named only" run only when named), or the scenes named.',
    '',
    'Scenes:',
    ...scenes.map((scene) => `  ${scene.name.padEnd(width)}  ${scene.title}${scene.onlyWhenNamed === true ? ' (named only)' : ''}`),
    '',
    'Options:',
    '  -h, --help  print this and exit',
  ].join('\n');
}

async function main(): Promise<void> {
  const args = process.argv.slice(2).filter((arg) => arg !== '--');
  const scenes = await loadScenes();
  if (args.includes('--help') || args.includes('-h')) {
    console.log(usage(scenes));
    return;
  }
  const options = args.filter((arg) => arg.startsWith('-'));
  if (options.length > 0) {
    console.error(`Unknown option: ${options.join(', ')}\n\n${usage(scenes)}`);
    process.exitCode = 2;
    return;
  }
  const wanted = args;
  const unknown = wanted.filter((name) => !scenes.some((scene) => scene.name === name));
  if (unknown.length > 0) {
    console.error(`Unknown scene: ${unknown.join(', ')}. Scenes: ${scenes.map((scene) => scene.name).join(', ')}`);
    process.exitCode = 2;
    return;
  }
  const selected = wanted.length === 0 ? scenes.filter((scene) => scene.onlyWhenNamed !== true) : scenes.filter((scene) => wanted.includes(scene.name));
  for (const scene of selected) {
    console.log(`\n=== ${scene.name}: ${scene.title} ===`);
    await scene.run();
  }
  console.log(`\nDemo finished: ${selected.length} scene(s).`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
