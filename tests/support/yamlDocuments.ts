import { parsers } from "prettier/plugins/yaml";
import { isRecord } from "../../lib/guards";

/**
 * Reads the YAML of deploy/ into plain values, through the YAML parser that
 * Prettier (already a dev dependency) ships, so the manifests need no new
 * package. Prettier gives a syntax tree; this folds it into values with the
 * YAML 1.2 core schema, and refuses what the manifests should not contain:
 * tags, anchors and aliases, and the YAML 1.1 booleans (an unquoted `yes` is
 * a string here but `true` to kubectl's parser, which breaks `args`).
 */

interface YamlNode {
  type: string;
  value?: unknown;
  children?: (YamlNode | null)[];
  tag?: unknown;
  anchor?: unknown;
}

function isNode(x: unknown): x is YamlNode {
  return isRecord(x) && typeof x.type === "string" && (x.children === undefined || Array.isArray(x.children));
}

const YAML_11_BOOLEANS = /^(y|Y|yes|Yes|YES|n|N|no|No|NO|on|On|ON|off|Off|OFF)$/;

function scalar(text: string, where: string): unknown {
  if (/^(null|Null|NULL|~)?$/.test(text)) return null;
  if (/^(true|True|TRUE)$/.test(text)) return true;
  if (/^(false|False|FALSE)$/.test(text)) return false;
  if (YAML_11_BOOLEANS.test(text)) throw new Error(`${where}: quote "${text}" (kubectl's YAML reads it as a boolean)`);
  if (/^[-+]?[0-9]+$/.test(text)) return Number(text);
  if (/^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/.test(text)) return Number(text);
  return text;
}

function children(node: YamlNode): (YamlNode | null)[] {
  return node.children ?? [];
}

function toValue(node: YamlNode | null | undefined, where: string): unknown {
  if (!node) return null;
  if (node.tag || node.anchor) throw new Error(`${where}: tags and anchors are not used in deploy/`);
  switch (node.type) {
    case "plain":
      return scalar(String(node.value), where);
    case "quoteDouble":
    case "quoteSingle":
    case "blockLiteral":
    case "blockFolded":
      return String(node.value);
    case "mapping":
    case "flowMapping": {
      const out: Record<string, unknown> = {};
      for (const item of children(node)) {
        const [key, value] = item ? children(item) : [];
        const name = String(toValue(key ? children(key)[0] : null, where));
        if (Object.hasOwn(out, name)) throw new Error(`${where}: duplicate key ${name}`);
        out[name] = toValue(value ? children(value)[0] : null, `${where}.${name}`);
      }
      return out;
    }
    case "sequence":
    case "flowSequence":
      return children(node).map((item, i) => toValue(item ? children(item)[0] : null, `${where}[${i}]`));
    default:
      throw new Error(`${where}: unsupported YAML node ${node.type}`);
  }
}

/** Every non-empty document of a YAML stream, as plain values. */
export async function parseYamlDocuments(text: string, file = "yaml"): Promise<unknown[]> {
  const root: unknown = await Reflect.apply(parsers.yaml.parse, parsers.yaml, [text, {}]);
  if (!isNode(root)) throw new Error(`${file}: not a YAML stream`);
  const docs: unknown[] = [];
  for (const [i, doc] of children(root).entries()) {
    const body = doc ? children(doc).find((c) => c?.type === "documentBody") : undefined;
    const content = body ? children(body)[0] : null;
    if (content) docs.push(toValue(content, `${file}#${i}`));
  }
  return docs;
}
