/**
 * A lab command line as the shell splits it: simple commands joined by `|`,
 * `&&`, `||`, `;` or a newline, each a list of words with the quotes removed,
 * the way bash hands them to the program. Only what the lab sheets need is
 * understood (quotes, backslashes, `$VAR`, `$(…)`, redirections, leading
 * `NAME=value` assignments); anything else (subshells, backquotes, heredocs)
 * is a syntax error here rather than a guess, so a new shape of command gets
 * a look before it reaches a class.
 */

export interface ShellWord {
  /** The word the program receives, quotes removed; `$VAR` and `$(…)` are kept as written. */
  value: string;
  /** The word depends on a variable or a command's output, so only its shape can be checked. */
  dynamic: boolean;
}

export interface SimpleCommand {
  /** `NAME=value` words before the program's name (a variable set for the line, or for the shell). */
  assignments: string[];
  words: ShellWord[];
}

export interface ShellLine {
  commands: SimpleCommand[];
  /** The text inside each `$(…)`: a command line of its own, checked like any other. */
  substitutions: string[];
}

export class ShellSyntaxError extends Error {}

const NAME = /^[A-Za-z_][A-Za-z0-9_]*/;

interface OpenWord {
  value: string;
  dynamic: boolean;
  quoted: boolean;
}

/** Where the `)` closing the `$(` that opens at `open` is, skipping quoted text and nested parentheses. */
function closingParen(source: string, open: number): number {
  let depth = 0;
  for (let i = open; i < source.length; i++) {
    const c = source[i];
    if (c === "\\") i++;
    else if (c === "'") {
      const end = source.indexOf("'", i + 1);
      if (end < 0) break;
      i = end;
    } else if (c === '"') {
      for (i++; i < source.length && source[i] !== '"'; i++) if (source[i] === "\\") i++;
    } else if (c === "(") depth++;
    else if (c === ")" && --depth === 0) return i;
  }
  throw new ShellSyntaxError("a $( without its closing )");
}

/** Reads a `$…` expansion starting at `at` into `word`; returns the index after it. */
function readDollar(source: string, at: number, word: OpenWord, substitutions: string[]): number {
  const next = source[at + 1];
  if (next === "(") {
    const close = closingParen(source, at + 1);
    const inner = source.slice(at + 2, close);
    substitutions.push(inner);
    word.value += `$(${inner})`;
    word.dynamic = true;
    return close + 1;
  }
  if (next === "{") {
    const close = source.indexOf("}", at);
    if (close < 0) throw new ShellSyntaxError("a ${ without its closing }");
    word.value += source.slice(at, close + 1);
    word.dynamic = true;
    return close + 1;
  }
  const name = NAME.exec(source.slice(at + 1));
  if (name) {
    word.value += `$${name[0]}`;
    word.dynamic = true;
    return at + 1 + name[0].length;
  }
  word.value += "$";
  return at + 1;
}

/** Splits one command line (a sheet's `run`, a check's command) the way bash would. */
export function splitShellLine(source: string): ShellLine {
  const commands: SimpleCommand[] = [];
  const substitutions: string[] = [];
  let words: ShellWord[] = [];
  let assignments: string[] = [];
  let word: OpenWord | null = null;
  let redirectTarget = false;
  let operatorPending = false;

  const open = (): OpenWord => (word ??= { value: "", dynamic: false, quoted: false });
  // Read through a function: the closures above assign `word`, which flow analysis cannot see.
  const currentWord = (): OpenWord | null => word;
  const endWord = () => {
    if (!word) return;
    const done: OpenWord = word;
    word = null;
    if (redirectTarget) {
      redirectTarget = false;
      return;
    }
    if (words.length === 0 && !done.quoted && /^[A-Za-z_][A-Za-z0-9_]*=/.test(done.value)) assignments.push(done.value);
    else words.push({ value: done.value, dynamic: done.dynamic });
  };
  const endCommand = (operator: boolean) => {
    endWord();
    if (redirectTarget) throw new ShellSyntaxError("a redirection with no file after it");
    if (words.length === 0 && assignments.length === 0) {
      if (operator || operatorPending) throw new ShellSyntaxError("an operator with no command on one side");
    } else commands.push({ assignments, words });
    operatorPending = operator;
    words = [];
    assignments = [];
  };

  let i = 0;
  while (i < source.length) {
    const c = source[i];
    if (c === "\\") {
      if (source[i + 1] !== "\n") open().value += source[i + 1] ?? "";
      i += 2;
    } else if (c === "'") {
      const close = source.indexOf("'", i + 1);
      if (close < 0) throw new ShellSyntaxError("a ' without its closing '");
      const w = open();
      w.value += source.slice(i + 1, close);
      w.quoted = true;
      i = close + 1;
    } else if (c === '"') {
      const w = open();
      w.quoted = true;
      for (i++; ;) {
        if (i >= source.length) throw new ShellSyntaxError('a " without its closing "');
        const d = source[i];
        if (d === '"') break;
        if (d === "\\" && '$`"\\\n'.includes(source[i + 1] ?? "")) {
          if (source[i + 1] !== "\n") w.value += source[i + 1];
          i += 2;
        } else if (d === "$") i = readDollar(source, i, w, substitutions);
        else if (d === "`") throw new ShellSyntaxError("backquotes: write $(…) instead");
        else {
          w.value += d;
          i++;
        }
      }
      i++;
    } else if (c === "$") {
      i = readDollar(source, i, open(), substitutions);
    } else if (c === "`") {
      throw new ShellSyntaxError("backquotes: write $(…) instead");
    } else if (c === " " || c === "\t") {
      endWord();
      i++;
    } else if (c === "#" && currentWord() === null) {
      const eol = source.indexOf("\n", i);
      i = eol < 0 ? source.length : eol;
    } else if (c === "\n" || c === ";") {
      endCommand(c === ";");
      i++;
    } else if (c === "|" || c === "&") {
      endCommand(true);
      i += source[i + 1] === c ? 2 : 1;
    } else if (c === ">" || c === "<") {
      // "2>" and "2>&1": the digits name a file descriptor, not an argument.
      const current = currentWord();
      if (current && !current.quoted && /^\d+$/.test(current.value)) word = null;
      endWord();
      i++;
      if (source[i] === ">") i++;
      if (source[i] === "&") {
        const fd = /^\d+|^-/.exec(source.slice(i + 1));
        if (!fd) throw new ShellSyntaxError("a >& with no file descriptor after it");
        i += 1 + fd[0].length;
      } else redirectTarget = true;
    } else if (c === "(" || c === ")" || (c === "{" && currentWord() === null)) {
      throw new ShellSyntaxError(`"${c}" (subshells and groups are not used on lab sheets)`);
    } else {
      open().value += c;
      i++;
    }
  }
  endCommand(false);
  if (operatorPending) throw new ShellSyntaxError("an operator with no command after it");
  return { commands, substitutions };
}
