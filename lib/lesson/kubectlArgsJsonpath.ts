/**
 * kubectl's JSONPath template parser, ported rule for rule from client-go
 * (k8s.io/client-go/util/jsonpath/parser.go) so a sheet's `-o jsonpath=…`
 * fails here exactly where kubectl says "error parsing jsonpath …". Only
 * the verdict is kept: the parse tree is not built.
 */

const EOF = "";

const isSpace = (r: string) => r === " " || r === "\t";
const isEndOfLine = (r: string) => r === "\r" || r === "\n";
const isDigit = (r: string) => r !== EOF && r >= "0" && r <= "9";
const isAlphaNumeric = (r: string) => r === "_" || /^[\p{L}\p{Nd}]$/u.test(r);
const isTerminator = (r: string) => r === EOF || isSpace(r) || isEndOfLine(r) || ".,[]$@{}".includes(r);

const DICT_KEY = /^'([^']*)'$/;
const SLICE = /^(-?\d*)(:-?\d*)?(:-?\d*)?$/;
const FILTER = /^([^!<>=]+)([!<>=~]+)(.+?)$/;
const SIMPLE_ESCAPES = "abfnrtv\\'\"";

class JsonpathSyntaxError extends Error {}

/** strconv.Unquote, extended to single quotes (client-go's UnquoteExtend): only the error matters. */
function checkQuoted(quoted: string): void {
  const quote = quoted[0];
  if (quoted.length < 2 || quoted[quoted.length - 1] !== quote)
    throw new JsonpathSyntaxError(`unquote string ${quoted} error invalid syntax`);
  const body = quoted.slice(1, -1);
  for (let i = 0; i < body.length; i++) {
    if (body[i] !== "\\") continue;
    const e = body[i + 1] ?? "";
    const hex = e === "x" ? 2 : e === "u" ? 4 : e === "U" ? 8 : 0;
    if (SIMPLE_ESCAPES.includes(e) && e !== "") i++;
    else if (hex > 0 && /^[0-9a-fA-F]+$/.test(body.slice(i + 2, i + 2 + hex)) && body.slice(i + 2, i + 2 + hex).length === hex)
      i += 1 + hex;
    else if (/^[0-7]{3}$/.test(body.slice(i + 1, i + 4))) i += 3;
    else throw new JsonpathSyntaxError(`unquote string ${quoted} error invalid syntax`);
  }
}

class Parser {
  private pos = 0;
  private start = 0;
  private width = 0;

  constructor(private readonly input: string) {}

  parse(): void {
    this.parseText();
  }

  private next(): string {
    if (this.pos >= this.input.length) {
      this.width = 0;
      return EOF;
    }
    this.width = 1;
    return this.input[this.pos++];
  }

  private peek(): string {
    const r = this.next();
    this.backup();
    return r;
  }

  private backup(): void {
    this.pos -= this.width;
  }

  private consumeText(): string {
    const value = this.input.slice(this.start, this.pos);
    this.start = this.pos;
    return value;
  }

  private parseText(): void {
    for (;;) {
      if (this.input.startsWith("{", this.pos)) {
        this.consumeText();
        this.pos += 1;
        this.consumeText();
        this.parseInsideAction();
        return;
      }
      if (this.next() === EOF) return;
    }
  }

  private parseInsideAction(): void {
    const rest = this.input.slice(this.pos);
    if (rest.startsWith("}")) {
      this.pos += 1;
      this.consumeText();
      this.parseText();
      return;
    }
    if (rest.startsWith("[?(")) return this.parseFilter();
    if (rest.startsWith("..")) return this.parseRecursive();
    const r = this.next();
    if (r === EOF || isEndOfLine(r)) throw new JsonpathSyntaxError("unclosed action");
    if (r === " " || r === "@" || r === "$") this.consumeText();
    else if (r === "[") return this.parseArray();
    else if (r === '"' || r === "'") return this.parseQuote(r);
    else if (r === ".") return this.parseField();
    else if (r === "+" || r === "-" || isDigit(r)) {
      this.backup();
      return this.parseNumber();
    } else if (isAlphaNumeric(r)) {
      this.backup();
      return this.parseIdentifier();
    } else throw new JsonpathSyntaxError(`unrecognized character in action: ${JSON.stringify(r)}`);
    this.parseInsideAction();
  }

  private parseIdentifier(): void {
    while (!isTerminator(this.next()));
    this.backup();
    this.consumeText();
    this.parseInsideAction();
  }

  private parseRecursive(): void {
    this.pos += 2;
    this.consumeText();
    if (this.input.startsWith("..", this.pos)) throw new JsonpathSyntaxError("invalid multiple recursive descent");
    if (isAlphaNumeric(this.peek())) return this.parseField();
    this.parseInsideAction();
  }

  private parseNumber(): void {
    const sign = this.peek();
    if (sign === "+" || sign === "-") this.next();
    for (;;) {
      const r = this.next();
      if (r !== "." && !isDigit(r)) {
        this.backup();
        break;
      }
    }
    const value = this.consumeText();
    if (!/^[+-]?(\d+|\d+\.\d*|\.\d+)$/.test(value)) throw new JsonpathSyntaxError(`cannot parse number ${value}`);
    this.parseInsideAction();
  }

  private parseArray(): void {
    for (;;) {
      const r = this.next();
      if (r === EOF || r === "\n") throw new JsonpathSyntaxError("unterminated array");
      if (r === "]") break;
    }
    let text = this.consumeText().slice(1, -1);
    if (text === "*") text = ":";
    const union = text.split(",");
    if (union.length > 1) {
      for (const part of union) parseTemplate(`{[${part.trim()}]}`);
    } else {
      const key = DICT_KEY.exec(text);
      if (key) parseTemplate(`{.${key[1]}}`);
      else if (!SLICE.test(text)) throw new JsonpathSyntaxError(`invalid array index ${text}`);
    }
    this.parseInsideAction();
  }

  private parseFilter(): void {
    this.pos += 3;
    this.consumeText();
    let begin = false;
    let end = false;
    let pair = "";
    for (;;) {
      const r = this.next();
      if (r === EOF || r === "\n") throw new JsonpathSyntaxError("unterminated filter");
      if (r === '"' || r === "'") {
        if (!begin) {
          begin = true;
          pair = r;
          continue;
        }
        if (this.input[this.pos - 2] !== "\\" && r === pair) end = true;
      } else if (r === ")" && begin === end) break;
    }
    if (this.next() !== "]") throw new JsonpathSyntaxError("unclosed array expect ]");
    const text = this.consumeText().slice(0, -2);
    const parts = FILTER.exec(text);
    if (!parts) parseTemplate(`{${text}}`);
    else {
      parseTemplate(`{${parts[1]}}`);
      parseTemplate(`{${parts[3]}}`);
    }
    this.parseInsideAction();
  }

  private parseQuote(end: string): void {
    for (;;) {
      const r = this.next();
      if (r === EOF || r === "\n") throw new JsonpathSyntaxError("unterminated quoted string");
      if (r === end && this.input[this.pos - 2] !== "\\") break;
    }
    checkQuoted(this.consumeText());
    this.parseInsideAction();
  }

  private parseField(): void {
    this.consumeText();
    for (;;) {
      const r = this.next();
      if (r === "\\") this.next();
      else if (isTerminator(r)) {
        this.backup();
        break;
      }
    }
    this.consumeText();
    this.parseInsideAction();
  }
}

function parseTemplate(template: string): void {
  new Parser(template).parse();
}

/** Why kubectl would reject this JSONPath template (its own wording), or null when it parses. */
export function jsonpathError(template: string): string | null {
  try {
    parseTemplate(template);
    return null;
  } catch (error) {
    if (error instanceof JsonpathSyntaxError) return error.message;
    throw error;
  }
}
