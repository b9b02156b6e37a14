import type { Locale } from "../../i18n/locales";
import { defineJobType } from "../define";
import { duplicates, norm, type SnapshotContent } from "../fields";
import { extractKnowledgePoints } from "./analyse";
import { repeatsPassage } from "./summary";
import { trimModifier } from "./signals";
import { isStopWord } from "../shared/terms";
import { titleKey } from "./title-key";
import { knowledgePointExtractionEntry } from "./schema";

export * from "./schema";

/** Whitespace removed: a model may re-flow lines, and Chinese puts no spaces between words. */
const squash = (s: string) => s.replace(/\s+/gu, "");

/** The text of the job's target material, or null when the target is not a material in the snapshot. */
export function targetMaterialText(snapshot: SnapshotContent | null): string | null {
  if (snapshot?.target.type !== "material") return null;
  return snapshot.materials.find((m) => m.id === snapshot.target.id)?.content ?? null;
}

/** Does `passage` occur in `material`, whitespace aside? */
export const groundedIn = (material: string, passage: string) => {
  const p = squash(passage);
  return p.length > 0 && squash(material).includes(p);
};

export const knowledgePointExtraction = defineJobType({
  ...knowledgePointExtractionEntry,
  quality(v, check) {
    const params = check.params();
    const points = v.knowledgePoints;
    if (points.length > params.maxPoints)
      check.add(
        "knowledgePoints",
        "too_many_points",
        `${points.length} proposed, at most ${params.maxPoints} asked for`,
      );
    for (const d of duplicates(points.map((p) => p.title))) {
      const at = points.map((p) => norm(p.title)).lastIndexOf(d);
      check.add(`knowledgePoints.${at}.title`, "duplicate_title", `duplicate title "${d}"`);
    }
    const material = targetMaterialText(check.snapshot);
    points.forEach((p, i) => {
      if (material === null || !groundedIn(material, p.passage))
        check.add(
          `knowledgePoints.${i}.passage`,
          "passage_not_grounded",
          material === null
            ? "the job's target is not a material in its snapshot"
            : "the passage is not a quote of the material's text",
        );
    });
  },
  qualityChecks(v, { snapshot }) {
    const findings: string[] = [];
    const material = targetMaterialText(snapshot) ?? "";
    const existing = snapshot.knowledgePoints.map((k) => k.title);
    const keys = v.knowledgePoints.map((p) => titleKey(p.title));
    v.knowledgePoints.forEach((p, i) => {
      if (/\n/.test(p.summary)) findings.push(`knowledgePoints.${i}.summary: write the summary on one line`);
      if (norm(p.summary) === norm(p.title))
        findings.push(`knowledgePoints.${i}.summary: the summary repeats the title`);
      if (repeatsPassage(p.summary, p.passage, p.title))
        findings.push(`knowledgePoints.${i}.summary: the summary repeats the passage; say the point in your own words`);
      if (keys.indexOf(keys[i]!) < i)
        findings.push(
          `knowledgePoints.${i}.title: the same term as knowledge point ${keys.indexOf(keys[i]!)} (singular and plural are one)`,
        );
      if (trimModifier(p.title) !== p.title)
        findings.push(`knowledgePoints.${i}.title: drop the modifier ("${trimModifier(p.title)}")`);
      if (isStopWord(p.title)) findings.push(`knowledgePoints.${i}.title: "${p.title}" is a generic word, not a point`);
      const same = existing.find((t) => titleKey(t) === keys[i] && norm(t) !== norm(p.title));
      if (same) findings.push(`knowledgePoints.${i}.title: the material has it as "${same}"; use that title`);
      for (const term of p.keyTerms)
        if (!squash(material).toLowerCase().includes(squash(term).toLowerCase()))
          findings.push(`knowledgePoints.${i}.keyTerms: "${term}" does not occur in the material`);
    });
    return findings;
  },
  prompt: {
    task: [
      "Propose the knowledge points a learner should study in the target material (the snapshot's material whose id is target.id).",
      "For each: a short title, a one-line summary, the key terms (as written in the material) and the passage it comes from.",
      "The passage is copied character for character from the material's content (one or two sentences); never paraphrase it.",
      "When the material already has a point you would propose (the snapshot's knowledgePoints), propose it under its existing title: it is shown as already chosen.",
      "Cover every section, the applications and the causes too; a title is the term itself without a modifier (阿基米德原理, not 著名的阿基米德原理; Archimedes' principle, not the famous Archimedes' principle), never a generic noun (实验, experiment), and a singular and its plural are one point.",
      "The summary says the point in one line in your own words (term: what it is); it never copies the passage.",
    ].join(" "),
    rules: (params) => [
      `Propose at most ${params.maxPoints} knowledge points.`,
      "No two knowledge points may share a title.",
    ],
  },
  analyse: (snapshot, params, _asOf, locale: Locale = "en") => extractKnowledgePoints(snapshot, params, locale),
});
