// Tests of domain/pattern.ts: the validator's refusals (construct and offset),
// the accepted look-alikes, JavaScript semantics (checked against V8 on
// patterns that are safe to give it), case folding, Unicode, literal mode and
// linear time on adversarial input. No tmux needed.

import assert from "node:assert/strict";
import { ToolError } from "../core/errors.ts";
import { compilePattern, loadPatternEngine, type PatternOptions } from "../domain/pattern.ts";

await loadPatternEngine();

const CI: PatternOptions = { literal: false, ignoreCase: true };
const CS: PatternOptions = { literal: false, ignoreCase: false };
const LIT_CI: PatternOptions = { literal: true, ignoreCase: true };
const LIT_CS: PatternOptions = { literal: true, ignoreCase: false };

function refusal(pattern: string, options: PatternOptions = CI): ToolError {
  try {
    compilePattern(pattern, options);
  } catch (error) {
    assert.ok(error instanceof ToolError, `expected ToolError, got ${error}`);
    return error;
  }
  throw new assert.AssertionError({ message: `pattern ${JSON.stringify(pattern)} was accepted` });
}

function matches(pattern: string, line: string, options: PatternOptions = CI): boolean {
  return compilePattern(pattern, options).test(line);
}

Deno.test("refuses lookarounds and backreferences, naming construct and offset", () => {
  const cases: [string, string][] = [
    ["ab(?=c)", "lookahead at offset 2 is not supported"],
    ["ab(?!c)", "negative lookahead at offset 2 is not supported"],
    ["abc(?<=c)", "lookbehind at offset 3 is not supported"],
    ["(?<!x)y", "negative lookbehind at offset 0 is not supported"],
    ["(a)b\\1", "backreference at offset 4 is not supported"],
    ["(?<word>a)-\\k<word>", "named backreference at offset 11 is not supported"],
  ];
  for (const [pattern, message] of cases) {
    const error = refusal(pattern);
    assert.equal(error.message, message, pattern);
    assert.ok(error.hint.length > 0);
  }
});

Deno.test("the first refused construct in the text is reported", () => {
  assert.equal(refusal("a(?=b(?<=c))").message, "lookahead at offset 1 is not supported");
  assert.equal(refusal("(a)\\1(?=x)").message, "backreference at offset 3 is not supported");
});

Deno.test("a refusal never echoes the pattern back", () => {
  const pattern = "secret-token-(?<=xyz)";
  const error = refusal(pattern);
  assert.ok(!error.message.includes("secret"), error.message);
  const syntax = refusal("secret-token-(");
  assert.ok(!syntax.message.includes("secret"), syntax.message);
});

Deno.test("escaped look-alikes are accepted with their JavaScript meaning", () => {
  assert.ok(matches("\\(?=", "(="));
  assert.ok(matches("\\(?=", "=")); // `\(?` is an optional "(" then "="
  assert.ok(matches("a\\(?=b", "x a(=b y"));
  assert.ok(matches("[(?=]", "?"));
  assert.ok(!matches("[(?=]", "x"));
  // Inside a class \1 is the legacy octal escape U+0001, never a backreference.
  assert.ok(matches("[\\1]", "\x01"));
  assert.ok(!matches("[\\1]", "1"));
  assert.ok(matches("(a)[\\1]", "a\x01"));
  assert.ok(matches("\\\\1", "\\1")); // an escaped backslash then "1"
});

Deno.test("escapes JavaScript reads as octal or as the character itself keep that meaning", () => {
  // Without such a group these are no backreferences: V8 reads them as text.
  const cases: [string, string, string][] = [
    ["x\\1", "x\x01", "x1"],
    ["a\\12b", "a\nb", "a12b"],
    ["\\400", " 0", "\u0100"],
    ["\\8", "8", "\b"],
    ["\\k<name>", "k<name>", "K<name>"],
    ["(a)\\2", "a\x02", "aa"],
  ];
  for (const [pattern, yes, no] of cases) {
    for (const line of [yes, no]) {
      assert.equal(
        matches(pattern, line, CS),
        new RegExp(pattern).test(line),
        `${pattern} on ${line}`,
      );
    }
    assert.ok(matches(pattern, yes, CS), pattern);
    assert.ok(!matches(pattern, no, CS), pattern);
  }
});

Deno.test("syntax errors name their offset", () => {
  assert.equal(refusal("ab(cd").message, "syntax error at offset 5: Unterminated group");
  assert.match(refusal("a{2,1}").message, /^syntax error at offset \d+: /);
  assert.match(refusal("x)").message, /^syntax error at offset 1: /);
  assert.equal(refusal("*a").message, "syntax error at offset 1: Nothing to repeat");
});

Deno.test("other refused constructs", () => {
  assert.equal(refusal("\\p{L}").message, "Unicode property escape at offset 0 is not supported");
  assert.equal(refusal("a\\u{41}").message, "incomplete \\u escape at offset 1 is not supported");
  assert.equal(refusal("(?m:^a)").message, "multiline modifier at offset 2 is not supported");
  assert.equal(refusal("a{1001}").message, "a repeat count over 1000 at offset 0 is not supported");
  assert.equal(
    refusal("x(a{100}){100}").message,
    "the repetition at offset 1 expands to over 4000 character positions",
  );
  assert.match(refusal("😀+").message, /quantifier on an astral character .* at offset 0 /);
  assert.match(refusal("[😀]").message, /character class at offset 0/);
  assert.equal(refusal("\\uD83D").message, "a lone surrogate at offset 0 is not supported");
  // The matching cost per character is bounded; the refusal names the repetition that breaks it.
  assert.match(
    refusal("x(?:\\ba ){0,330}c").message,
    /^the repetition at offset 1 costs \d+ operations per character to match, over 1000$/,
  );
  assert.match(
    refusal("(?:[ab]c|[bc]a){0,50}|y(?:[ab]c|[bc]a|[ca]b){0,200}d").message,
    /^the repetition at offset 23 costs /,
  );
  // Without a repetition to blame: where the cost goes over, the first prefix refused.
  const costly = "\\bx".repeat(300);
  let fits = 0;
  while (fits < 300) {
    try {
      compilePattern("\\bx".repeat(fits + 1), CI);
      fits++;
    } catch {
      break;
    }
  }
  assert.ok(fits < 300);
  assert.match(
    refusal(costly).message,
    new RegExp(
      `^the pattern costs \\d+ operations .* from the part at offset (${fits * 3}|${
        fits * 3 + 2
      }) on$`,
    ),
  );

  // POSIX classes mean something else in JavaScript: refused with the class to write instead.
  const posix = refusal("x[[:digit:]]+");
  assert.equal(posix.message, "POSIX class [:digit:] at offset 1 is not supported");
  assert.match(posix.hint, /write \\d instead/);
  assert.match(refusal("[[:alpha:]]").hint, /\[A-Za-z\]/);
  // Accepted neighbours of the refused ones.
  assert.ok(matches("[[:]x", ":x"));
  assert.ok(matches("[:digit:]", "t"));
  assert.ok(matches("\\w{3,1000}", "abc"));
  assert.ok(matches("a{1000}", "a".repeat(1000)));
  assert.ok(!matches("a{1000}", "a".repeat(999)));
  assert.ok(matches("(?:😀)+", "x😀😀"));
  assert.ok(matches("\\uD83D\\uDE00", "😀"));
});

Deno.test("patterns over 999 UTF-8 bytes are refused, in bytes not characters", () => {
  assert.ok(compilePattern("a".repeat(999), CS).test("a".repeat(999)));
  assert.equal(
    refusal("a".repeat(1000)).message,
    "the pattern is 1000 UTF-8 bytes, over the limit of 999 from offset 999 on",
  );
  // 500 two-byte characters: 500 UTF-16 units but 1,000 bytes.
  assert.match(refusal("ü".repeat(500)).message, /1000 UTF-8 bytes, .* from offset 499 on$/);
  assert.ok(compilePattern("ü".repeat(499), CI).test("Ü".repeat(499)));
  assert.match(refusal("日".repeat(334), LIT_CS).message, /1002 UTF-8 bytes/);
});

Deno.test("case-insensitive by the caller's choice, exact otherwise", () => {
  assert.ok(matches("error", "An ERROR occurred", CI));
  assert.ok(!matches("error", "An ERROR occurred", CS));
  assert.ok(matches("[a-c]x", "BX", CI));
  assert.ok(!matches("[^a]", "A", CI)); // negated classes fold before negating, as in JS
  assert.ok(matches("(?i:err)OR", "ERROR", CS));
  assert.ok(!matches("(?i:err)OR", "error", CS));
  assert.ok(!matches("(?-i:err)or", "ERROR", CI));
});

Deno.test("Unicode text and case folding", () => {
  assert.ok(matches("ü", "Grüße"));
  assert.ok(matches("日本", "東京は日本の首都"));
  assert.ok(!matches("日本", "中国"));
  assert.ok(matches("straße", "STRAßE"));
  assert.ok(matches("Straße", "straße"));
  assert.ok(matches("É", "café"));
  assert.ok(matches("café", "CAFÉ"));
  assert.ok(!matches("É", "café", CS));
  assert.ok(matches("Ω", "ω"));
  // JavaScript's rule without the u flag: no non-ASCII character folds to ASCII.
  assert.ok(!matches("s", "ſ"));
  assert.ok(!matches("k", "\u212a")); // KELVIN SIGN
  assert.ok(!matches("\\W", "s")); // ſ is in \W but must not drag s in
  assert.ok(matches("\\W", "ſ"));
  // Text is read by code point: `.` consumes a whole emoji.
  assert.ok(matches("^.$", "😀"));
  assert.ok(matches("a.b", "a😀b"));
  assert.ok(matches("^[^x]$", "😀"));
  assert.ok(matches("^[\\s\\S]$", "😀"));
  assert.ok(matches("^[\\u0000-\\uffff]$", "😀"));
  assert.ok(!matches("^\\S\\S$", "😀"));
});

Deno.test("line anchors, dot and JavaScript character classes", () => {
  assert.ok(matches("^\\$ $", "$ "));
  assert.ok(!matches("^b", "ab"));
  assert.ok(!matches("a$", "ab"));
  assert.ok(!matches("a.b", "a\rb")); // JS `.` excludes \r, RE2's does not
  assert.ok(!matches("a.b", "a\u2028b"));
  assert.ok(matches("(?s:a.b)", "a\rb"));
  assert.ok(matches("[^]", "\r"));
  assert.ok(!matches("[]", "anything"));
  assert.ok(matches("a\\sb", "a\u00a0b")); // JS \s is Unicode white space
  assert.ok(matches("a\\sb", "a\u3000b"));
  assert.ok(!matches("\\d", "٣")); // JS \d is ASCII
  assert.ok(!matches("\\w", "é"));
  assert.ok(matches("\\bfoo\\b", "a foo."));
  assert.ok(!matches("\\bfoo\\b", "afoo"));
  assert.ok(matches("\\cJ", "\n"));
  assert.ok(matches("\\x41\\u0042\\0", "AB\0"));
  assert.ok(matches("a|", "zzz")); // an empty alternative matches everywhere
  assert.ok(matches("x{2,3}?y", "xxy"));
  assert.ok(matches("\\d+ms", "took 125ms"));
  assert.ok(!matches("\\d+ms", "took ms"));
  assert.ok(matches("(?<name>ab)+c", "ababc"));
  assert.ok(matches("a{", "a{"), "Annex B: a lone brace is a literal");
});

Deno.test("agrees with V8 on patterns that are safe to give V8", () => {
  // V8 runs only these fixed, known-linear patterns here, never a user's.
  const patterns = [
    "error|warn",
    "^\\s*\\d+",
    "\\bfoo\\b",
    "[^a-z]+$",
    "[\\w.-]+@[\\w-]+",
    "x.y",
    "\\W\\S",
    "[\\d\\s]",
    "colou?r",
    "a{2,3}",
    "(?:ab|cd)+e",
    "[^\\W_]",
    "\\$\\{",
    "é|ß",
    "[à-ÿ]",
    "\\u00e9",
    "[A-Z][a-z]*",
    "^$",
    "k",
    "[^\\s]",
    "[\\s\\S]x",
    "ς",
    "Σ",
    "[α-ω]",
    "İ",
    "ı",
    "\\B.",
    "\\.",
  ];
  const lines = [
    "",
    "ERROR: disk full",
    "a warning",
    "foo",
    "food foo",
    "xay",
    "x\ny",
    "A.B",
    "user@example.com",
    "colour color",
    "aaa",
    "abcde",
    "${HOME}",
    "Café STRAẞE ß",
    "ÉÀÿ",
    "\u212a",
    "K",
    "ſ",
    "ΣΑΣ",
    "σας",
    "İstanbul",
    "ıi",
    "  42 items",
    "tab\there",
    "\u00a0",
    "_x",
    "Zebra",
    "a.b",
  ];
  for (const ignoreCase of [false, true]) {
    for (const pattern of patterns) {
      const v8 = new RegExp(pattern, ignoreCase ? "i" : "");
      const ours = compilePattern(pattern, { literal: false, ignoreCase });
      for (const line of lines) {
        assert.equal(
          ours.test(line),
          v8.test(line),
          `${JSON.stringify(pattern)} ignoreCase=${ignoreCase} on ${JSON.stringify(line)}`,
        );
      }
    }
  }
});

Deno.test("agrees with V8 on random small patterns (seeded)", () => {
  // Short lines keep V8's backtracking bounded; the seed makes failures reproducible.
  let seed = 12345;
  const random = (n: number) => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed % n;
  };
  const atoms = [
    "a",
    "b",
    "A",
    "é",
    "É",
    "ß",
    "ſ",
    "k",
    "K",
    ".",
    "\\w",
    "\\W",
    "\\s",
    "\\S",
    "\\d",
    "[a-c]",
    "[^b]",
    "[^\\W]",
    "[\\s\\d]",
    "\\b",
    "\\B",
    "^",
    "$",
    "\\.",
    "[É-ë]",
    // Annex B escapes JavaScript reads as octal or as the character itself.
    "\\141",
    "\\8",
    "\\k",
    "\\0",
  ];
  const quantifiers = ["", "", "", "*", "+", "?", "{1,2}", "*?", "{0,3}", "{2}", "{2,}"];
  const atom = (depth: number): string => {
    if (depth < 2 && random(5) === 0) {
      const parts = Array.from({ length: 2 + random(2) }, () => sequence(depth + 1));
      return `(?:${parts.join("|")})${quantifiers[random(quantifiers.length)]}`;
    }
    const a = atoms[random(atoms.length)];
    return /^[\^$]|^\\[bB]$/.test(a) ? a : a + quantifiers[random(quantifiers.length)];
  };
  const sequence = (depth: number) =>
    Array.from({ length: 1 + random(3) }, () => atom(depth)).join("");
  const alphabet = [
    "a",
    "A",
    "b",
    "c",
    "é",
    "É",
    "ß",
    "ſ",
    "k",
    "\u212a",
    " ",
    "1",
    "8",
    "_",
    ".",
    "\n",
  ];
  for (let i = 0; i < 4000; i++) {
    const pattern = sequence(0);
    const ignoreCase = random(2) === 0;
    const flags = ignoreCase ? "i" : "";
    const v8 = new RegExp(pattern, flags);
    const ours = compilePattern(pattern, { literal: false, ignoreCase });
    for (let j = 0; j < 8; j++) {
      const line = Array.from({ length: random(7) }, () => alphabet[random(alphabet.length)])
        .join("");
      const where = `${JSON.stringify(pattern)} ignoreCase=${ignoreCase} on ${
        JSON.stringify(line)
      }`;
      const matched = ours.test(line);
      assert.equal(matched, v8.test(line), where);
      if (!matched) continue;
      // The span find reports is a match: V8 matches from its start to exactly its end.
      const [start, end] = ours.find(line)!;
      const exact = new RegExp(`(?:${pattern})(?<=^[\\s\\S]{${end}})`, flags + "y");
      exact.lastIndex = start;
      assert.ok(exact.test(line), `find gave [${start}, ${end}) for ${where}`);
    }
  }
});

Deno.test("literal mode matches the text itself", () => {
  assert.ok(matches("a.b*(c)?[d]{1}|$", "x a.b*(c)?[d]{1}|$ y", LIT_CS));
  assert.ok(!matches("a.b", "axb", LIT_CS));
  assert.ok(!matches("a.b", "axb", LIT_CI));
  assert.ok(matches("(?<=x)\\1", "(?<=X)\\1", LIT_CI)); // refused constructs are just text
  assert.ok(!matches("(?<=x)\\1", "(?<=X)\\1", LIT_CS));
  assert.ok(matches("ERROR [main]", "error [MAIN] boom", LIT_CI));
  assert.ok(matches("straße", "STRAßE", LIT_CI));
  assert.ok(matches("日本", "日本語", LIT_CI));
  assert.ok(!matches("s", "ſ", LIT_CI));
  assert.ok(matches("", "anything", LIT_CS));
});

Deno.test("adversarial patterns finish in linear time with correct results", () => {
  const cases: [string, string, boolean][] = [
    ["(a+)+$", "a".repeat(30) + "!", false],
    ["(a+)+$", "a".repeat(30), true],
    ["(a|a)*b", "a".repeat(5000), false], // dropped by the required-literal prefilter
    // A class is not a literal: these run the engine over the whole line.
    ["(a|a)*[b]", "a".repeat(5000) + "!", false],
    ["(a|aa)*[c]", "a".repeat(5000) + "!", false],
    ["(a|a)*b", "a".repeat(5000) + "!b", true], // passes the prefilter, scans to the end
    ["(a|aa)*c$", "a".repeat(5000) + "!c", true],
    ["(.*a){12}", "a".repeat(11) + "b".repeat(5000), false],
    ["(\\w+\\s?)*$", "word ".repeat(1000) + "!", true],
    ["^(\\w+\\s?)*$", "word ".repeat(1000) + "!", false],
  ];
  for (const options of [CI, CS]) {
    for (const [pattern, line, expected] of cases) {
      const start = performance.now();
      assert.equal(matches(pattern, line, options), expected, pattern);
      const ms = performance.now() - start;
      assert.ok(ms < 1000, `${pattern} took ${ms.toFixed(0)} ms`);
    }
  }
});

Deno.test("counted repetitions that defeat a DFA cost a bounded time per character", () => {
  // 100 KB each: the engine's bound is far below 1 s per MB; an engine paying
  // the repetition's size per character took seconds here.
  let state = 1;
  const text = (alphabet: string, suffix: string) =>
    Array.from({ length: 100 * 1024 }, () => {
      state = (state * 1103515245 + 12345) % 2147483648;
      return alphabet[state % alphabet.length];
    }).join("") + suffix;
  const cases: [string, string, boolean][] = [
    ["a[ab]{200}[c]", text("ab", ""), false],
    ["a.{0,990}b", text("ax", "!b"), true],
    ["\\w{3,1000}!", text("ax", " !"), false],
    [".{0,990}x", text("ab", "x"), true],
    ["[ab]{0,990}c", text("ab", "c"), true],
  ];
  for (const [pattern, line, expected] of cases) {
    const matcher = compilePattern(pattern, CI);
    const start = performance.now();
    assert.equal(matcher.test(line), expected, pattern);
    const ms = performance.now() - start;
    assert.ok(ms < 1000, `${pattern} took ${ms.toFixed(0)} ms on 100 KB`);
  }
});

Deno.test("compiled matchers are cached per pattern and options", () => {
  const a = compilePattern("cache-me\\d", CI);
  assert.equal(compilePattern("cache-me\\d", CI), a);
  assert.notEqual(compilePattern("cache-me\\d", CS), a);
  assert.notEqual(compilePattern("cache-me\\d", LIT_CI), a);
  assert.equal(a.source, "cache-me\\d");
  // The cache is bounded: after many other patterns the first is rebuilt.
  for (let i = 0; i < 300; i++) compilePattern(`filler${i}`, CI);
  const b = compilePattern("cache-me\\d", CI);
  assert.notEqual(b, a);
  assert.ok(b.test("CACHE-ME7"));
});
