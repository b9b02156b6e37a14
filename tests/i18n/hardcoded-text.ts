import ts from "typescript";

/**
 * Finds words a learner would read that are written in a component instead of coming from the
 * message catalogues: JSX text, text-bearing attributes and props (aria-label, placeholder, title,
 * label, alt, …), string literals and templates that end up as JSX children (`{ok ? "Yes" : "No"}`),
 * and any sentence-like string literal anywhere in the file (notices set in handlers, tables of
 * labels). Only letters count (any script, so Chinese is caught too); symbols, numbers and the
 * names on ALLOWED are not sentences.
 */
export type Finding = { file: string; line: number; text: string; why: string };

/** Names that read the same in every language, and the language names of the switcher. */
export const ALLOWED = new Set(["DeepSeek", "English", "简体中文"]);

/** Attributes whose values are machinery, not words shown to a person. */
const NON_TEXT_ATTRIBUTES = new Set([
  "className",
  "id",
  "htmlFor",
  "type",
  "name",
  "href",
  "role",
  "autoComplete",
  "inputMode",
  "method",
  "action",
  "key",
  "value",
  "defaultValue",
  "rel",
  "target",
  "lang",
  "dir",
  "src",
  "encType",
  "accept",
  "scope",
  "size",
  "tone",
  "variant",
  "viewBox",
  "d",
  "fill",
  "stroke",
  "strokeWidth",
  "strokeLinecap",
  "strokeLinejoin",
  "textAnchor",
  "fontSize",
  "points",
  "transform",
  "xmlns",
  "preserveAspectRatio",
  "aria-hidden",
  "aria-live",
  "aria-current",
  "aria-labelledby",
  "aria-describedby",
  "aria-controls",
  "aria-haspopup",
  "aria-expanded",
  "aria-pressed",
  "aria-checked",
  "aria-invalid",
  "aria-disabled",
  "aria-modal",
  "aria-atomic",
  "aria-relevant",
  "aria-sort",
]);

const LETTER = /\p{L}/u;

/** Text with its allowed names and interpolation holes removed: does any letter remain? */
function hasWords(text: string): boolean {
  let rest = text;
  for (const name of ALLOWED) rest = rest.split(name).join(" ");
  return LETTER.test(rest);
}

/**
 * A string outside JSX that reads like a sentence: words with a space between them that start
 * with a capital or end with sentence punctuation ("Could not save.", "Started 3 analyses"), or
 * any CJK text. Class lists, keys, URLs, codes and identifiers do not match.
 */
function looksLikeSentence(text: string): boolean {
  let rest = text.trim();
  for (const name of ALLOWED) rest = rest.split(name).join(" ").trim();
  if (/[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u.test(rest)) return true;
  if (!/\p{L}{2,}/u.test(rest) || !/\s/.test(rest)) return false;
  if (/^[a-z0-9:_\-[\]/.%!&>*=#(),~@]+(\s+[a-z0-9:_\-[\]/.%!&>*=#(),~@]+)*$/.test(rest)) return false; // class lists
  return /^\p{Lu}/u.test(rest) || /[.!?…:;。！？]$/u.test(rest);
}

function staticText(node: ts.Node): string | null {
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return node.text;
  if (ts.isTemplateExpression(node))
    return [node.head.text, ...node.templateSpans.map((s) => s.literal.text)].join(" ");
  return null;
}

/** Walks up through ?:, &&, ||, ??, +, parentheses and templates: does the value land in JSX, and where? */
function jsxDestination(node: ts.Node): { kind: "child" } | { kind: "attribute"; name: string } | null {
  let current: ts.Node = node;
  for (;;) {
    const parent = current.parent;
    if (!parent) return null;
    if (
      ts.isParenthesizedExpression(parent) ||
      (ts.isConditionalExpression(parent) && parent.condition !== current) ||
      (ts.isBinaryExpression(parent) &&
        [
          ts.SyntaxKind.AmpersandAmpersandToken,
          ts.SyntaxKind.BarBarToken,
          ts.SyntaxKind.QuestionQuestionToken,
          ts.SyntaxKind.PlusToken,
        ].includes(parent.operatorToken.kind)) ||
      ts.isTemplateSpan(parent) ||
      ts.isTemplateExpression(parent)
    ) {
      current = parent;
      continue;
    }
    if (ts.isJsxExpression(parent)) {
      const holder = parent.parent;
      if (holder && ts.isJsxAttribute(holder)) return { kind: "attribute", name: holder.name.getText() };
      return { kind: "child" };
    }
    if (ts.isJsxAttribute(parent)) return { kind: "attribute", name: parent.name.getText() };
    return null;
  }
}

const isTextAttribute = (name: string) => !NON_TEXT_ATTRIBUTES.has(name) && !name.startsWith("data-");

/** Strings that are code, not words: imports, type positions, object keys, `t("key")` calls, "use client". */
function isCode(node: ts.Node): boolean {
  const parent = node.parent;
  if (!parent) return true;
  if (ts.isImportDeclaration(parent) || ts.isExportDeclaration(parent) || ts.isExternalModuleReference(parent))
    return true;
  if (ts.isLiteralTypeNode(parent)) return true;
  if (ts.isExpressionStatement(parent)) return true; // directives
  if (ts.isPropertyAssignment(parent) && parent.name === node) return true;
  if (ts.isElementAccessExpression(parent) && parent.argumentExpression === node) return true;
  if (ts.isCallExpression(parent) && parent.arguments[0] === node) {
    const callee = parent.expression.getText();
    // Message lookups and the like take keys; a sentence passed to any other call is still caught.
    if (/^(t\w*|use\w+|\w+\.rich|\w+\.has|\w+\.get\w*|getTranslations|Object\.hasOwn)$/.test(callee)) return true;
  }
  return false;
}

export function findHardcodedText(file: string, source: string): Finding[] {
  const sf = ts.createSourceFile(file, source, ts.ScriptTarget.Latest, true, ts.ScriptKind.TSX);
  const findings: Finding[] = [];
  const report = (node: ts.Node, text: string, why: string) =>
    findings.push({ file, line: sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1, text: text.trim(), why });

  const visit = (node: ts.Node) => {
    if (ts.isJsxText(node)) {
      if (hasWords(node.text)) report(node, node.text, "JSX text");
    } else if (ts.isJsxAttribute(node) && node.initializer && ts.isStringLiteral(node.initializer)) {
      const name = node.name.getText();
      if (isTextAttribute(name) && hasWords(node.initializer.text))
        report(node, node.initializer.text, `attribute ${name}`);
      return;
    } else {
      const text = staticText(node);
      if (text !== null) {
        const where = jsxDestination(node);
        if (where) {
          if ((where.kind === "child" || isTextAttribute(where.name)) && hasWords(text))
            report(node, text, where.kind === "child" ? "string in JSX" : `attribute ${where.name}`);
          if (ts.isTemplateExpression(node)) return;
        } else if (!isCode(node) && looksLikeSentence(text)) {
          report(node, text, "sentence in code");
        }
        if (ts.isTemplateExpression(node)) {
          // The holes may hold strings of their own.
          node.templateSpans.forEach((s) => visit(s.expression));
          return;
        }
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return findings;
}
