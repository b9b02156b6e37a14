import { norm } from "../fields";

/**
 * A proposal's one-line summary, written from the sentence it is read from without repeating it:
 * a definition turned round to "term：what it is" ("这个力叫做浮力" → "浮力：浸在液体中的物体受到
 * 向上托的力", "Osmosis is the diffusion of water …" → "Osmosis: the diffusion of water …"), else the
 * sentence's first clause under the term's name.
 */
const HAN = /\p{Script=Han}/u;
const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
const MAX = 120;

function shorten(s: string) {
  const t = s.replace(/\s+/g, " ").replace(/^[，,;；:：\s]+|[，,;；:：。.!?！？\s]+$/gu, "");
  return Array.from(t).length <= MAX
    ? t
    : `${Array.from(t)
        .slice(0, MAX - 1)
        .join("")}…`;
}

export function summaryOf(title: string, text: string): string {
  const t = escape(title);
  // A glossary line's term before its colon is the title itself.
  const sentence = text.replace(new RegExp(`^${t}\\s*[：:]\\s*`, "iu"), "");
  const zh = HAN.test(sentence);
  const sep = zh ? "：" : ": ";
  const patterns = zh
    ? [
        // "D，这个力叫做T" / "把D叫做T"
        new RegExp(
          `^(?:把|将)?(.{4,}?)[，,]?(?:(?:这个|这种|这类|这一|这|此)\\p{Script=Han}{0,2}?)?(?:叫做|叫作|称为|称作|就是)${t}`,
          "u",
        ),
        // "T是(指)D" / "T指D"
        new RegExp(`${t}(?:是指|指的是|是|指(?!出)|即)(.{4,})`, "u"),
        // "T指出：D"
        new RegExp(`${t}(?:指出|表明|告诉我们)[：:，,]?(.{4,})`, "u"),
      ]
    : [
        new RegExp(`^(.{8,}?)\\s+(?:is|are)\\s+(?:called|known as|termed)\\s+(?:an?\\s+|the\\s+)?${t}`, "iu"),
        new RegExp(`${t}\\s+(?:is|are)\\s+(?:defined as\\s+)?(.{8,})`, "iu"),
        new RegExp(`${t}\\s+(?:states|says|means)\\s+that\\s+(.{8,})`, "iu"),
      ];
  for (const re of patterns) {
    const m = re.exec(sentence);
    if (m?.[1]) return `${title}${sep}${shorten(m[1])}`;
  }
  // No definition: the first clause, under the term's name (the passage keeps the whole sentence);
  // a clause that opens with the term says the rest of it ("A surplus occurs when …" → "Surplus: occurs when …").
  const clauses = sentence
    .split(zh ? /[，；：。！？]/u : /[,;:.!?](?:\s|$)|\s(?:whose|which|that|because|so|when|where|while)\s/iu)
    .filter((c) => c.trim());
  const clause = clauses.find((c) => new RegExp(t, "iu").test(c)) ?? clauses[0] ?? sentence;
  const opening = new RegExp(`^(?:(?:the|an?)\\s+)?${t}\\s*`, "iu").exec(clause);
  const rest = opening ? clause.slice(opening[0].length) : clause;
  const said = `${title}${sep}${shorten(rest.trim() ? rest : clause)}`;
  // Still the whole passage: its first words, cut.
  if (!repeatsPassage(said, text, title)) return said;
  const words = zh ? Array.from(rest) : rest.split(" ");
  return `${title}${sep}${words.slice(0, Math.max(2, Math.ceil(words.length / 2))).join(zh ? "" : " ")}…`;
}

/** Whether a summary repeats its passage: the same text, or the passage's words with at most the title before them. */
export function repeatsPassage(summary: string, passage: string, title: string): boolean {
  const s = norm(summary);
  const p = norm(passage);
  const bare = s.startsWith(norm(title)) ? s.slice(norm(title).length).replace(/^[：:\s-]+/u, "") : s;
  return s === p || (bare.length > 0 && p === bare);
}
