/**
 * Learner-written text is bounded and plain before it is stored, copied into snapshots, shown to
 * admins or handed to a model. Control characters (C0/C1, and the bidirectional overrides that
 * make text display differently from what it says) are removed; lengths are capped.
 */
export const LIMITS = {
  displayName: 100,
  materialTitle: 200,
  materialContent: 4000,
  knowledgePointTitle: 200,
  knowledgePointDescription: 1000,
  quizQuestion: 500,
  quizAnswer: 2000,
  reviewCardText: 4000,
} as const;

// C0 and C1 controls, DEL, and the bidi embeddings/overrides/isolates.
const CONTROLS = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;
// The same, but keeping newline and tab: multi-line text (material content) stays multi-line.
const CONTROLS_BUT_LINES = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

/** One line of text: controls removed, whitespace runs collapsed, trimmed. */
export function plainLine(s: string): string {
  return s.replace(CONTROLS, " ").replace(/\s+/g, " ").trim();
}

/** One line, cut at `max` characters (on a code point boundary, so no lone surrogate is left). */
export function boundedLine(s: string, max: number): string {
  return cut(plainLine(s), max);
}

/** Multi-line text: controls but newline and tab removed, cut at `max` characters. */
export function boundedText(s: string, max: number): string {
  return cut(s.replace(CONTROLS_BUT_LINES, ""), max);
}

function cut(s: string, max: number): string {
  if (s.length <= max) return s;
  return s
    .slice(0, max)
    .toWellFormed()
    .replace(/\uFFFD$/, "");
}
