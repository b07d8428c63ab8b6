import { join, resolve } from 'node:path';
import { readdirSync } from 'node:fs';
import ts from 'typescript';

// Every public export of every package has TSDoc: a summary and an @example (which test/docs.spec.ts
// then type-checks).
const root = resolve(__dirname, '..');
const packages = readdirSync(join(root, 'packages')).sort();

/** The TSDoc comment above `export * as Name from '...'` (TypeScript attaches none to the symbol). */
function namespaceExportDoc(exported: ts.Symbol): string | undefined {
  const declaration = exported.declarations?.[0];
  if (declaration === undefined || !ts.isNamespaceExport(declaration)) return undefined;
  const statement = declaration.parent;
  const text = statement.getSourceFile().getFullText();
  const ranges = ts.getLeadingCommentRanges(text, statement.getFullStart()) ?? [];
  const last = ranges[ranges.length - 1];
  return last === undefined ? '' : text.slice(last.pos, last.end).trim();
}

function undocumentedExports(): Map<string, string[]> {
  const config = ts.readConfigFile(join(root, 'tsconfig.base.json'), (path) => ts.sys.readFile(path));
  const parsed = ts.parseJsonConfigFileContent(config.config, ts.sys, root);
  const entries = packages.map((name) => join(root, 'packages', name, 'src', 'index.ts'));
  const program = ts.createProgram(entries, { ...parsed.options, noEmit: true });
  const checker = program.getTypeChecker();
  const missing = new Map<string, string[]>();
  packages.forEach((name, index) => {
    const source = program.getSourceFile(entries[index]!);
    const moduleSymbol = source === undefined ? undefined : checker.getSymbolAtLocation(source);
    const problems: string[] = [];
    for (const exported of moduleSymbol === undefined ? [] : checker.getExportsOfModule(moduleSymbol)) {
      // A grouped name (a module namespace of functions exported under the name of the type they build)
      // is documented where it is exported; anything else where it is declared.
      const namespaceDoc = namespaceExportDoc(exported);
      if (namespaceDoc !== undefined) {
        if (!/^\/\*\*\s*\*?\s*\w/.test(namespaceDoc)) problems.push(`${exported.name}: no summary`);
        else if (!namespaceDoc.includes('@example')) problems.push(`${exported.name}: no @example`);
        continue;
      }
      const documented = ts.displayPartsToString(exported.getDocumentationComment(checker)).trim() !== '';
      const symbol = exported.flags & ts.SymbolFlags.Alias && !documented ? checker.getAliasedSymbol(exported) : exported;
      const summary = ts.displayPartsToString(symbol.getDocumentationComment(checker)).trim();
      const hasExample = symbol.getJsDocTags(checker).some((tag) => tag.name === 'example');
      if (summary === '') problems.push(`${exported.name}: no summary`);
      else if (!hasExample) problems.push(`${exported.name}: no @example`);
    }
    missing.set(name, problems);
  });
  return missing;
}

describe('every public export has TSDoc with an @example', () => {
  const missing = undocumentedExports();
  it.each(packages)('@rxagents/%s', (name) => {
    expect(missing.get(name)).toEqual([]);
  });
});
