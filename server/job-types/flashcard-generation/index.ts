import { defineJobType } from "../define";
import { duplicates, norm } from "../fields";
import { generateFlashcards } from "./analyse";
import { flashcardGenerationEntry } from "./schema";

export * from "./schema";

export const flashcardGeneration = defineJobType({
  ...flashcardGenerationEntry,
  quality(v, check) {
    const params = check.params();
    if (v.flashcards.length !== params.count)
      check.add("flashcards", "count_mismatch", `${v.flashcards.length} generated, ${params.count} requested`);
    for (const d of duplicates(v.flashcards.map((c) => c.front))) {
      const at = v.flashcards.map((c) => norm(c.front)).lastIndexOf(d);
      check.add(`flashcards.${at}.front`, "duplicate_front", `duplicate front "${d}"`);
    }
    v.flashcards.forEach((c, i) => check.knowledgePoint(`flashcards.${i}`, c.knowledgePointId));
  },
  qualityChecks(v) {
    const findings: string[] = [];
    v.flashcards.forEach((c, i) => {
      if (norm(c.front) === norm(c.back)) findings.push(`flashcards.${i}: the back repeats the front`);
    });
    return findings;
  },
  prompt: {
    task: [
      "Write flashcards from the knowledge points' and materials' own content: a question or cue on the front, the answer on the back.",
      "The back answers the front in one or two sentences, the answer once; the source passage, if you give it, comes after a blank line, starting with the word for source in the learner's language (Source: / 原文：), never copied whole into the answer.",
    ].join(" "),
    rules: (params) => [`Generate exactly ${params.count} flashcards.`],
  },
  analyse: (snapshot, params, _asOf, locale) => generateFlashcards(snapshot, params, locale),
});
