import type { NextActions } from "../next-action-planning/schema";
import type { EvidenceRules, Finding } from "./finding";

/**
 * The due counts a sentence states, in the ways a plan says them ("3 due cards", "3 cards due",
 * "3 张到期卡片", "3 张卡片到期").
 */
export function dueCountsIn(text: string): number[] {
  const patterns = [/(\d+)\s+(?:due\s+cards?|cards?\s+(?:are\s+|is\s+)?due)\b/giu, /(\d+)\s*张(?:卡片)?(?:已)?到期/gu];
  return patterns.flatMap((p) => [...text.matchAll(p)].map((m) => Number(m[1])));
}

export const nextActionRules: EvidenceRules<NextActions> = {
  rules: {
    point_once_per_action: "A knowledge point is the target of at most one action of each `actionType`.",
    due_count:
      "An action's `dueCards`, and every due count its title or reason states, equals the snapshot's `reviews` count of that point's due cards — the cards the Review view shows as due at the capture (server/review/due.ts).",
  },
  check(v, { snapshot }) {
    const found: Finding[] = [];
    const add = (rule: string, path: string, message: string) => found.push({ rule, path, message });
    const due = new Map((snapshot.reviews?.knowledgePoints ?? []).map((r) => [r.knowledgePointId, r.dueCards]));
    const title = new Map(snapshot.knowledgePoints.map((k) => [k.id, k.title]));
    const seen = new Map<string, number>();
    v.actions.forEach((a, i) => {
      if (a.target.type !== "knowledge_point" || !a.target.id) return;
      const id = a.target.id;
      const key = `${a.actionType}|${id}`;
      const first = seen.get(key);
      if (first !== undefined)
        add(
          "point_once_per_action",
          `actions.${i}`,
          `"${title.get(id) ?? id}" already has a ${a.actionType} action (actions.${first}); merge them`,
        );
      else seen.set(key, i);
      const actual = due.get(id) ?? 0;
      const stated = [
        ...(a.dueCards !== undefined ? [{ n: a.dueCards, where: `actions.${i}.dueCards` }] : []),
        ...dueCountsIn(a.title).map((n) => ({ n, where: `actions.${i}.title` })),
        ...dueCountsIn(a.reason).map((n) => ({ n, where: `actions.${i}.reason` })),
      ];
      for (const s of stated)
        if (s.n !== actual)
          add(
            "due_count",
            s.where,
            `"${title.get(id) ?? id}" has ${actual} card(s) due in the Review view at the capture, not ${s.n}`,
          );
    });
    return found;
  },
};
