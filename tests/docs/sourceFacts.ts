import fs from "node:fs";
import path from "node:path";
import ts from "typescript";

/**
 * What the code declares, read from its source with the TypeScript compiler:
 * the members of the event maps and the string literals of union types exist
 * only for the compiler, so this is the one place they can be read at run
 * time. Declarations are found by name wherever they live under a folder, so
 * a module moved inside it changes nothing here.
 */

export const ROOT = path.resolve(__dirname, "../..");

/** The TypeScript sources under `dir` (relative to the repository), tests left out. */
export function sourceFiles(dir: string, recursive = true): string[] {
  const found: string[] = [];
  const walk = (at: string) => {
    for (const entry of fs.readdirSync(at, { withFileTypes: true })) {
      const full = path.join(at, entry.name);
      if (entry.isDirectory()) {
        if (recursive) walk(full);
      } else if (/\.tsx?$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name) && !entry.name.endsWith(".d.ts")) {
        found.push(full);
      }
    }
  };
  walk(path.join(ROOT, dir));
  return found.sort();
}

const parsed = new Map<string, ts.SourceFile>();
function parse(file: string): ts.SourceFile {
  let source = parsed.get(file);
  if (!source) parsed.set(file, (source = ts.createSourceFile(file, fs.readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true)));
  return source;
}

type Declaration = ts.InterfaceDeclaration | ts.TypeAliasDeclaration;

/** The one interface or type alias called `name` in these files; anything but exactly one is an error naming what was searched. */
export function findDeclaration(name: string, files: string[]): { declaration: Declaration; file: string } {
  const hits = files.flatMap((file) =>
    parse(file)
      .statements.filter((s): s is Declaration => (ts.isInterfaceDeclaration(s) || ts.isTypeAliasDeclaration(s)) && s.name.text === name)
      .map((declaration) => ({ declaration, file: path.relative(ROOT, file) })),
  );
  const where = `${files.length} files (${[...new Set(files.map((f) => path.relative(ROOT, path.dirname(f))))].join(", ")})`;
  if (hits.length === 0) throw new Error(`no interface or type "${name}" is declared in ${where}`);
  if (hits.length > 1) throw new Error(`"${name}" is declared ${hits.length} times: ${hits.map((h) => h.file).join(", ")}`);
  return hits[0];
}

/** The member names of an interface (or of a type alias of an object type): for an event map, its event names. */
export function memberNames(name: string, files: string[]): string[] {
  const { declaration, file } = findDeclaration(name, files);
  if (ts.isInterfaceDeclaration(declaration) && declaration.heritageClauses?.length) {
    throw new Error(`${name} (${file}) extends another type: teach tests/docs/sourceFacts.ts to follow it`);
  }
  const members = ts.isInterfaceDeclaration(declaration)
    ? declaration.members
    : ts.isTypeLiteralNode(declaration.type)
      ? declaration.type.members
      : null;
  if (!members) throw new Error(`${name} (${file}) is not an object type`);
  return members.map((m) => {
    if (!m.name || !(ts.isStringLiteral(m.name) || ts.isIdentifier(m.name))) {
      throw new Error(`${name} (${file}) has a member whose name is not a plain string: ${m.getText()}`);
    }
    return m.name.text;
  });
}

/** Every string literal type inside a type alias (the members of a union of literals). */
export function stringLiterals(name: string, files: string[]): string[] {
  const { declaration } = findDeclaration(name, files);
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isLiteralTypeNode(node) && ts.isStringLiteral(node.literal)) found.push(node.literal.text);
    ts.forEachChild(node, visit);
  };
  visit(declaration);
  return found;
}

/** The string literals of every `type: "…"` property in a type alias: the kinds of a discriminated union. */
export function discriminants(name: string, files: string[], property = "type"): string[] {
  const { declaration } = findDeclaration(name, files);
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    if (
      ts.isPropertySignature(node) &&
      ts.isIdentifier(node.name) &&
      node.name.text === property &&
      node.type &&
      ts.isLiteralTypeNode(node.type) &&
      ts.isStringLiteral(node.type.literal)
    ) {
      found.push(node.type.literal.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(declaration);
  return found;
}

/**
 * Numeric `const`s declared at the top level of these files (exported or
 * not), with values the compiler can fold from literals: `1_000`, `16 * 1024`.
 * For numbers the server keeps to itself (a fan-out threshold), which a
 * document may still quote.
 */
export function numericConstants(files: string[]): Map<string, number[]> {
  const found = new Map<string, number[]>();
  for (const file of files) {
    for (const statement of parse(file).statements) {
      if (!ts.isVariableStatement(statement) || !(statement.declarationList.flags & ts.NodeFlags.Const)) continue;
      for (const d of statement.declarationList.declarations) {
        const value = d.initializer && ts.isIdentifier(d.name) ? fold(d.initializer) : null;
        if (value !== null && ts.isIdentifier(d.name)) found.set(d.name.text, [...(found.get(d.name.text) ?? []), value]);
      }
    }
  }
  return found;
}

function fold(node: ts.Expression): number | null {
  if (ts.isNumericLiteral(node)) return Number(node.text);
  if (ts.isParenthesizedExpression(node)) return fold(node.expression);
  if (ts.isPrefixUnaryExpression(node) && node.operator === ts.SyntaxKind.MinusToken) {
    const v = fold(node.operand);
    return v === null ? null : -v;
  }
  if (ts.isBinaryExpression(node)) {
    const [a, b] = [fold(node.left), fold(node.right)];
    if (a === null || b === null) return null;
    switch (node.operatorToken.kind) {
      case ts.SyntaxKind.PlusToken:
        return a + b;
      case ts.SyntaxKind.MinusToken:
        return a - b;
      case ts.SyntaxKind.AsteriskToken:
        return a * b;
      case ts.SyntaxKind.SlashToken:
        return a / b;
      default:
        return null;
    }
  }
  return null;
}

/** The text of every source file under these folders, for "does the code say this anywhere". */
export function sourceText(dirs: string[]): string {
  return dirs
    .flatMap((d) => sourceFiles(d))
    .map((f) => fs.readFileSync(f, "utf8"))
    .join("\n");
}
