import { parse, TYPE, type MessageFormatElement } from "@formatjs/icu-messageformat-parser";
import { describe, expect, it } from "vitest";
import en from "@/messages/en.json";
import zh from "@/messages/zh-CN.json";
import { LOCALES } from "@/server/i18n/locales";

type Tree = { [key: string]: string | Tree };
const CATALOGUES: Record<(typeof LOCALES)[number], Tree> = { en, "zh-CN": zh };

/** "a.b.c" → message, for every leaf. */
export function flatten(tree: Tree, prefix = ""): Map<string, string> {
  const out = new Map<string, string>();
  for (const [key, value] of Object.entries(tree)) {
    const path = prefix ? `${prefix}.${key}` : key;
    if (typeof value === "string") out.set(path, value);
    else for (const [k, v] of flatten(value, path)) out.set(k, v);
  }
  return out;
}

/**
 * What a message needs from the code: each argument with its kind (plain, number, date, plural,
 * select…) and each rich-text tag, nested ones included. Two translations of one message must
 * need the same, or one language shows a raw {name} or drops a value.
 */
export function placeholders(message: string): string[] {
  const found = new Set<string>();
  const walk = (elements: MessageFormatElement[]) => {
    for (const el of elements) {
      if (el.type === TYPE.argument) found.add(`{${el.value}}`);
      else if (el.type === TYPE.number) found.add(`{${el.value}, number}`);
      else if (el.type === TYPE.date) found.add(`{${el.value}, date}`);
      else if (el.type === TYPE.time) found.add(`{${el.value}, time}`);
      else if (el.type === TYPE.plural) {
        found.add(`{${el.value}, ${el.pluralType === "ordinal" ? "selectordinal" : "plural"}}`);
        for (const option of Object.values(el.options)) walk(option.value);
      } else if (el.type === TYPE.select) {
        found.add(`{${el.value}, select: ${Object.keys(el.options).sort().join("|")}}`);
        for (const option of Object.values(el.options)) walk(option.value);
      } else if (el.type === TYPE.tag) {
        found.add(`<${el.value}>`);
        walk(el.children);
      }
    }
  };
  walk(parse(message, { ignoreTag: false }));
  return [...found].sort();
}

describe("message catalogues", () => {
  const flat = Object.fromEntries(LOCALES.map((l) => [l, flatten(CATALOGUES[l])])) as Record<
    (typeof LOCALES)[number],
    Map<string, string>
  >;

  it.each(LOCALES)("%s has every key the other catalogues have", (locale) => {
    const others = LOCALES.filter((l) => l !== locale).flatMap((l) => [...flat[l].keys()]);
    expect(others.filter((k) => !flat[locale].has(k))).toEqual([]);
  });

  it.each(LOCALES)("every %s message parses as ICU and is not empty", (locale) => {
    const broken: string[] = [];
    for (const [key, message] of flat[locale]) {
      try {
        placeholders(message);
        if (!message.trim()) broken.push(`${key}: empty`);
      } catch (e) {
        broken.push(`${key}: ${(e as Error).message}`);
      }
    }
    expect(broken).toEqual([]);
  });

  it("each message needs the same arguments, kinds and tags in every language", () => {
    const differ: string[] = [];
    for (const [key, message] of flat.en) {
      const want = placeholders(message);
      for (const locale of LOCALES) {
        const other = flat[locale].get(key);
        if (other === undefined) continue;
        const got = placeholders(other);
        if (JSON.stringify(got) !== JSON.stringify(want))
          differ.push(`${locale} ${key}: ${got.join(" ")} ≠ en ${want.join(" ")}`);
      }
    }
    expect(differ).toEqual([]);
  });

  it("the Chinese catalogue is translated, not a copy of the English one", () => {
    const untranslated = [...flat.en].filter(
      ([key, text]) => /\p{L}{3,}/u.test(text) && flat["zh-CN"].get(key) === text,
    );
    // Names the same in both (brand names only) are allowed; everything else needs a translation.
    expect(untranslated.map(([k]) => k)).toEqual([]);
  });
});

describe("the checks themselves", () => {
  it("see a missing key, a renamed argument, a changed kind, a missing select branch and a dropped tag", () => {
    expect(placeholders("{n, plural, one {# card} other {# cards}} for <b>{name}</b>")).toEqual([
      "<b>",
      "{n, plural}",
      "{name}",
    ]);
    expect(placeholders("{count, plural, other {# 张卡片}}给 {who}")).not.toEqual(
      placeholders("{count, plural, one {# card} other {# cards}} for {name}"),
    );
    expect(placeholders("{n}")).not.toEqual(placeholders("{n, number}"));
    expect(placeholders("{s, select, a {A} other {B}}")).not.toEqual(placeholders("{s, select, other {B}}"));
    expect(placeholders("<b>x</b>")).not.toEqual(placeholders("x"));
    const a = flatten({ a: { b: "x", c: "y" } });
    const b = flatten({ a: { b: "x" } });
    expect([...a.keys()].filter((k) => !b.has(k))).toEqual(["a.c"]);
  });
});
