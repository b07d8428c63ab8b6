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

async function main(): Promise<void> {
  const wanted = process.argv.slice(2).filter((arg) => arg !== '--');
  const scenes = await loadScenes();
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
