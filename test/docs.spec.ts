import { dirname, join, resolve } from 'node:path';
import ts from 'typescript';
import { collectDocBlocks, type DocBlock } from '../scripts/docBlocks';

// Every ```ts block in the README, docs/ and TSDoc comments must type-check against the packages'
// public entries, so documentation never rots. Each block is compiled as its own module.
const root = resolve(__dirname, '..');
const blocks = collectDocBlocks(root);
const virtualDir = join(root, '.docs-check');
const fileOf = (index: number): string => join(virtualDir, `block-${index}.ts`);

let diagnosticsByFile: Map<string, string[]>;

beforeAll(() => {
  const configPath = join(root, 'tsconfig.base.json');
  const config = ts.readConfigFile(configPath, (path) => ts.sys.readFile(path));
  const parsed = ts.parseJsonConfigFileContent(config.config, ts.sys, dirname(configPath));
  const options: ts.CompilerOptions = { ...parsed.options, noEmit: true, types: ['node'] };
  const sources = new Map(blocks.map((block, index) => [fileOf(index), `${block.code}\nexport {};\n`]));
  const host = ts.createCompilerHost(options);
  const readFile = host.readFile.bind(host);
  const fileExists = host.fileExists.bind(host);
  const getSourceFile = host.getSourceFile.bind(host);
  host.readFile = (path) => sources.get(path) ?? readFile(path);
  host.fileExists = (path) => sources.has(path) || fileExists(path);
  host.getSourceFile = (path, language, onError, create) => {
    const text = sources.get(path);
    return text === undefined ? getSourceFile(path, language, onError, create) : ts.createSourceFile(path, text, language, true);
  };
  const program = ts.createProgram({ rootNames: [...sources.keys()], options, host });
  diagnosticsByFile = new Map();
  for (const file of sources.keys()) {
    const sourceFile = program.getSourceFile(file);
    const diagnostics = sourceFile === undefined ? [] : [...program.getSyntacticDiagnostics(sourceFile), ...program.getSemanticDiagnostics(sourceFile)];
    diagnosticsByFile.set(
      file,
      diagnostics.map((diagnostic) => {
        const position = diagnostic.file && diagnostic.start !== undefined ? diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start) : undefined;
        const where = position === undefined ? '' : `block line ${position.line + 1}: `;
        return `${where}${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}`;
      }),
    );
  }
}, 300_000);

describe('documentation code blocks type-check', () => {
  it('finds code blocks to check', () => {
    expect(blocks.length).toBeGreaterThan(0);
  });

  const byFile = new Map<string, { block: DocBlock; index: number }[]>();
  blocks.forEach((block, index) => byFile.set(block.file, [...(byFile.get(block.file) ?? []), { block, index }]));
  for (const [file, entries] of byFile) {
    describe(file, () => {
      for (const { block, index } of entries) {
        it(`block at line ${block.line}`, () => {
          expect((diagnosticsByFile.get(fileOf(index)) ?? []).join('\n')).toBe('');
        });
      }
    });
  }
});
