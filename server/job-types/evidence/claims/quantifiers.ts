/**
 * What a clause says of a set of answers as a whole: all right, all wrong, most right, most
 * wrong, or none given — in English and Chinese, after `canonical` (numbers as digits,
 * lower-case). `scope` is a number of newest answers the quantifier itself names ("all 4
 * answers", "4 次全部错误"), else null (the clause's scope or all answers).
 */
export type Quantifier = {
  says: "all_right" | "all_wrong" | "most_right" | "most_wrong" | "no_answers";
  scope: number | null;
  text: string;
};

const OWN = "(?:(?:her|his|their|the|its|my|your|these) )?";
const RECENT = "(?:(?:last|latest|recent|most recent|past) )?";
const ANS = "(?:answers?|attempts?|questions?|responses?|tries|quiz answers?)";
const BE = "(?: (?:were|was|are|is|have been|has been|came back|got marked|marked))?";
const RIGHT = "(?:right|correct|correctly answered|answered correctly)";
const WRONG = "(?:wrong|incorrect|incorrectly answered|answered incorrectly|answered wrongly|mistaken|failed)";
const ZH_ALL = "(?:全部|全都|全是|全|都|均|每次都|每一次都|每道题都|每道都|无一例外地?都?)";
const ZH_RIGHT = "(?:答对了?|正确|做对了?|对)(?![应比待照于象待方手])";
const ZH_WRONG = "(?:答错了?|错误|做错了?|错|不对|不正确)";
const ZH_ANS = "(?:作答|答题|回答|题目?|练习|答案)";

const PATTERNS: { re: RegExp; says: Quantifier["says"] }[] = [
  // English: none right / never right → all wrong; none wrong / never wrong → all right (before "all").
  {
    re: new RegExp(
      `\\b(?:none of ${OWN}${RECENT}(\\d+ )?${ANS}${BE} ${RIGHT}|never (?:once )?(?:got (?:it|one|a question|an answer|any|anything) right|answered (?:it |any |a question )?(?:correctly|right))|(?:0|zero) (?:correct|right) ${ANS}|not (?:a|one|1) (?:single )?(?:correct|right) ${ANS}|did not (?:get|answer) (?:a single|any|one)(?: question| answer)? (?:right|correctly))`,
      "gu",
    ),
    says: "all_wrong",
  },
  {
    re: new RegExp(
      `\\b(?:none of ${OWN}${RECENT}(\\d+ )?${ANS}${BE} ${WRONG}|never (?:once )?(?:got (?:it|one|a question|an answer|any|anything) wrong|answered (?:it |any |a question )?(?:wrongly|incorrectly|wrong)|made (?:a|any) mistakes?)|(?:0|zero) (?:wrong|incorrect) ${ANS}|(?:0|zero|no) (?:mistakes?|errors?)|without (?:a |any )?(?:single )?(?:mistake|error|wrong answer)s?|not (?:a|one|1) (?:single )?(?:mistake|error|wrong answer)|(?:a )?(?:perfect|flawless) (?:record|score|run))`,
      "gu",
    ),
    says: "all_right",
  },
  {
    re: new RegExp(
      `\\b(?:(?:all|every|each)(?: one)? (?:of )?${OWN}${RECENT}(\\d+ )?${ANS}${BE} ${RIGHT}|every (?:single )?${ANS} (?:was |were )?${RIGHT}|(?:answered|got) (?:every|each|all)(?: single)?(?: one| of them| (\\d+))?(?: ${ANS})? (?:right|correctly|correct)|(?:all|100%) (?:right|correct)\\b|all (\\d+) (?:right|correct))`,
      "gu",
    ),
    says: "all_right",
  },
  {
    re: new RegExp(
      `\\b(?:(?:all|every|each)(?: one)? (?:of )?${OWN}${RECENT}(\\d+ )?${ANS}${BE} ${WRONG}|every (?:single )?${ANS} (?:was |were )?${WRONG}|(?:answered|got) (?:every|each|all)(?: single)?(?: one| of them| (\\d+))?(?: ${ANS})? (?:wrong|incorrectly|wrongly)|(?:all|100%) (?:wrong|incorrect)\\b|all (\\d+) (?:wrong|incorrect))`,
      "gu",
    ),
    says: "all_wrong",
  },
  {
    re: new RegExp(
      `\\b(?:most (?:of )?${OWN}${RECENT}(\\d+ )?${ANS}${BE} ${RIGHT}|(?:answered|got) most(?: of them)?(?: ${ANS})? (?:right|correctly)|mostly (?:right|correct))`,
      "gu",
    ),
    says: "most_right",
  },
  {
    re: new RegExp(
      `\\b(?:most (?:of )?${OWN}${RECENT}(\\d+ )?${ANS}${BE} ${WRONG}|(?:answered|got) most(?: of them)?(?: ${ANS})? (?:wrong|incorrectly)|mostly (?:wrong|incorrect))`,
      "gu",
    ),
    says: "most_wrong",
  },
  {
    re: /\b(?:not (?:yet )?(?:practised|practiced|answered)|never (?:practised|practiced|answered)(?! (?:it |any |a question )?(?:correctly|right|wrong|wrongly|incorrectly))|no answers? (?:yet|so far|at all)|(?:has|have)(?:n't| not) answered (?:any|a single)|0 answers)\b/gu,
    says: "no_answers",
  },
  // Chinese: 一次也没答对 / 从未答对 / 没有一次答对 → all wrong; 一次也没答错 / 从未答错 / 零失误 → all right.
  {
    re: /(?:(?:1|一)\s*(?:次|道|题)(?:也|都)没(?:有)?(?:答|做)?对|从(?:来)?(?:没|未)(?:有)?(?:答|做)?对过?|没有(?:1|一)\s*(?:次|道)(?:答|做)?对|无一正确|没(?:有)?(?:答|做)对过?(?:一次|1次)?|全军覆没|颗粒无收)/gu,
    says: "all_wrong",
  },
  {
    re: /(?:(?:1|一)\s*(?:次|道|题)(?:也|都)没(?:有)?(?:答|做)?错|从(?:来)?(?:没|未)(?:有)?(?:答|做)?错过?|没有(?:1|一)\s*(?:次|道)(?:答|做)?错|无一错误|零失误|零错误|没(?:有)?(?:答|做)错过|全对|满分)/gu,
    says: "all_right",
  },
  {
    re: new RegExp(
      `(?:绝大多数|大多数|大部分|多数|多半)${ZH_ANS}?(?:都)?(?:是)?${ZH_RIGHT}|(?:答|做)对(?:了)?(?:绝大多数|大多数|大部分|多数)`,
      "gu",
    ),
    says: "most_right",
  },
  {
    re: new RegExp(
      `(?:绝大多数|大多数|大部分|多数|多半)${ZH_ANS}?(?:都)?(?:是)?${ZH_WRONG}|(?:答|做)错(?:了)?(?:绝大多数|大多数|大部分|多数)`,
      "gu",
    ),
    says: "most_wrong",
  },
  {
    re: new RegExp(`(?:(\\d+)\\s*(?:次|道|题)${ZH_ANS}?\\s*)?${ZH_ALL}(?:是)?${ZH_RIGHT}`, "gu"),
    says: "all_right",
  },
  {
    re: new RegExp(`(?:(\\d+)\\s*(?:次|道|题)${ZH_ANS}?\\s*)?${ZH_ALL}(?:是)?${ZH_WRONG}`, "gu"),
    says: "all_wrong",
  },
  {
    re: /(?:没有|从未|尚未|还没有?|未曾)(?:作答|答题|做题|练习|答过题)|(?:0|零)\s*次作答/gu,
    says: "no_answers",
  },
];

/** The quantifiers of a clause (already `canonical`), each read once. */
export function quantifiersIn(clause: string): { found: Quantifier[]; rest: string } {
  let rest = clause;
  const found: Quantifier[] = [];
  for (const { re, says } of PATTERNS)
    rest = rest.replace(re, (m, ...g: unknown[]) => {
      const n = g.slice(0, -2).find((x) => typeof x === "string" && /^\d+\s*$/u.test(x)) as string | undefined;
      found.push({ says, scope: n === undefined ? null : Number(n), text: m.trim() });
      return " ".repeat(m.length);
    });
  return { found, rest };
}
