import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

/**
 * The shape of the code, held by a test so it cannot drift back: no import
 * circles anywhere, lib/ layered one way, and no source file over 400 lines
 * except the lesson's content data.
 */

const ROOT = path.resolve(__dirname, "../..");
const DIRS = ["app", "components", "lib", "server", "bench", "scripts", "e2e", "tests"];
const SOURCE = /\.(ts|tsx|mts|mjs)$/;
const MAX_LINES = 400;

/** Lesson content: the steps, narration and lab commands as data, traced to Kubernetes' source (shared/LESSON.md). */
const CONTENT_DATA = new Set(["lib/lesson/scenarios.ts", "lib/lesson/lab.ts"]);

function sourceFiles(): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== "node_modules" && !entry.name.startsWith(".")) walk(full);
      } else if (SOURCE.test(entry.name)) out.push(full);
    }
  };
  for (const dir of DIRS) if (fs.existsSync(path.join(ROOT, dir))) walk(path.join(ROOT, dir));
  return out;
}

const IMPORT = /(?:import|export)\s+(?:type\s+)?(?:[^'";]*?\s+from\s+)?["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g;

function resolveImport(from: string, spec: string): string | null {
  let base: string;
  if (spec.startsWith("@/")) base = path.join(ROOT, spec.slice(2));
  else if (spec.startsWith(".")) base = path.resolve(path.dirname(from), spec);
  else return null;
  for (const candidate of [base, `${base}.ts`, `${base}.tsx`, path.join(base, "index.ts"), path.join(base, "index.tsx")]) {
    if (fs.existsSync(candidate) && fs.statSync(candidate).isFile()) return candidate;
  }
  return null;
}

/** Every file's imports (type-only ones included: a circle of types is still a circle to read). */
function importGraph(files: string[]): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const deps = new Set<string>();
    for (const m of fs.readFileSync(file, "utf8").matchAll(IMPORT)) {
      const target = resolveImport(file, m[1] ?? m[2]);
      if (target) deps.add(target);
    }
    graph.set(file, [...deps]);
  }
  return graph;
}

/** Strongly connected components with more than one file (Tarjan), or a file importing itself. */
function circles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next);
    next++;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || (graph.get(v) ?? []).includes(v)) found.push(component);
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

const rel = (file: string) => path.relative(ROOT, file).split(path.sep).join("/");

/**
 * lib/, bottom to top: each layer may import only the layers before it. The
 * base (text cleaning, room codes, error codes, constants, guards) imports
 * no layer; the protocol re-exports what browsers and the server share; the
 * teachers' accounts (what a signed-in teacher's pages and the server exchange)
 * build on the protocol's REST shapes; a course (self-paced assignments and
 * results across sessions) reads sessions, polls and lessons, and sits on top.
 */
const LIB_LAYERS = ["base", "lib/lesson", "lib/polls", "lib/session", "lib/protocol", "lib/account", "lib/course"];
const layerOf = (file: string): number => {
  const r = rel(file);
  const at = LIB_LAYERS.findIndex((layer) => r.startsWith(`${layer}/`));
  return at >= 0 ? at : 0;
};

describe("the code's shape", () => {
  const files = sourceFiles();
  const graph = importGraph(files);

  it("has no import circles", () => {
    expect(circles(graph).map((c) => c.map(rel).sort().join(" -> "))).toEqual([]);
  });

  it("layers lib/ one way, and lib/ imports nothing from the server, the pages or the components", () => {
    const wrong: string[] = [];
    for (const [file, deps] of graph) {
      // Tests beside the code may use the test support; they are not part of what lib/ ships.
      if (!rel(file).startsWith("lib/") || rel(file).endsWith(".test.ts")) continue;
      for (const dep of deps) {
        if (!rel(dep).startsWith("lib/")) wrong.push(`${rel(file)} imports ${rel(dep)}`);
        else if (layerOf(dep) > layerOf(file)) wrong.push(`${rel(file)} imports ${rel(dep)}, a layer above it`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it(`keeps every source file to ${MAX_LINES} lines, except the lesson's content data`, () => {
    const long = files
      .filter((file) => !CONTENT_DATA.has(rel(file)))
      .map((file) => ({ file: rel(file), lines: fs.readFileSync(file, "utf8").split("\n").length - 1 }))
      .filter(({ lines }) => lines > MAX_LINES)
      .map(({ file, lines }) => `${file}: ${lines} lines`);
    expect(long).toEqual([]);
  });

  it("keeps the session and the lesson out of the join form's first load (the live screen is a chunk of its own)", () => {
    // Static imports only (not `import type`, not `import()`): what the bundler puts in the join form's first load.
    const STATIC = /import\s+(?!type\s)(?:[^'";]*?\s+from\s+)?["']([^"']+)["']|export\s+(?!type\s)[^'";]*?\s+from\s+["']([^"']+)["']/g;
    const reached = new Set<string>();
    const walk = (file: string) => {
      if (reached.has(file)) return;
      reached.add(file);
      for (const m of fs.readFileSync(file, "utf8").matchAll(STATIC)) {
        const target = resolveImport(file, m[1] ?? m[2]);
        if (target) walk(target);
      }
    };
    walk(path.join(ROOT, "components/student/StudentView.tsx"));
    const heavy = [...reached]
      .map(rel)
      .filter((f) => f === "lib/protocol/wire.ts" || f.startsWith("lib/session/") || f === "lib/lesson/card.ts");
    expect(heavy).toEqual([]);
    // The walk follows what it should: the form's own imports are there, the live screen is not.
    expect(reached.has(path.join(ROOT, "components/student/liveScreen.ts"))).toBe(true);
    expect(reached.has(path.join(ROOT, "components/student/StudentLive.tsx"))).toBe(false);
  });

  it("sees the code it checks (the walk found the lib/ layers and the server)", () => {
    expect(files.length).toBeGreaterThan(200);
    for (const layer of LIB_LAYERS.slice(1)) expect(files.some((f) => rel(f).startsWith(`${layer}/`))).toBe(true);
    // The checker itself finds a circle when there is one.
    expect(
      circles(
        new Map([
          ["a", ["b"]],
          ["b", ["a"]],
          ["c", []],
        ]),
      ),
    ).toHaveLength(1);
  });
});
