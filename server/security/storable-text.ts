import type { z } from "zod";

/**
 * Text PostgreSQL cannot store: a NUL character (text and jsonb refuse it) and a lone UTF-16
 * surrogate (it has no UTF-8 encoding). Either one used to reach the database and come back as
 * a 500, sometimes after part of a request had been applied, so every door (Runtime routes, tRPC,
 * auth) refuses it up front with 400 INVALID_REQUEST naming the field.
 */
export type UnstorableIssue = { path: (string | number)[]; message: string };

const MAX_ISSUES = 10;

export function unstorableReason(s: string): string | null {
  if (s.includes("\u0000")) return "contains a NUL character (\\u0000), which cannot be stored";
  if (!s.isWellFormed()) return "contains a lone surrogate (not valid Unicode), which cannot be stored";
  return null;
}

/**
 * Every string (and object key) in a JSON-like value that cannot be stored. Walks with an explicit
 * stack, not recursion: a body nested 20,000 levels deep must not overflow the call stack. Paths
 * are built only for the strings that fail, so a clean 60 KB result costs tens of microseconds.
 */
type Frame = { value: unknown; key: string | number | null; parent: Frame | null };

function pathOf(frame: Frame): (string | number)[] {
  const path: (string | number)[] = [];
  for (let f: Frame | null = frame; f && f.key !== null; f = f.parent) path.push(f.key);
  return path.reverse();
}

const printableKey = (k: string) => k.toWellFormed().replaceAll("\u0000", "\\u0000");

export function findUnstorable(value: unknown): UnstorableIssue[] {
  const issues: UnstorableIssue[] = [];
  const stack: Frame[] = [{ value, key: null, parent: null }];
  while (stack.length && issues.length < MAX_ISSUES) {
    const frame = stack.pop()!;
    const v = frame.value;
    if (typeof v === "string") {
      const reason = unstorableReason(v);
      if (reason) issues.push({ path: pathOf(frame), message: reason });
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push({ value: v[i], key: i, parent: frame });
    } else if (v && typeof v === "object" && !(v instanceof Date)) {
      for (const k in v) {
        if (!Object.hasOwn(v, k)) continue;
        const reason = unstorableReason(k);
        if (reason) issues.push({ path: [...pathOf(frame), printableKey(k)], message: `field name ${reason}` });
        else stack.push({ value: (v as Record<string, unknown>)[k], key: k, parent: frame });
      }
    }
  }
  return issues;
}

export const pathText = (path: (string | number)[]) => path.join(".") || "(body)";

/** The same check as a zod refinement, for request schemas (`.superRefine(refuseUnstorable)`). */
export function refuseUnstorable(value: unknown, ctx: z.RefinementCtx) {
  for (const issue of findUnstorable(value)) ctx.addIssue({ code: "custom", path: issue.path, message: issue.message });
}

/** Details in the error shape's form: [{path: "target.id", message}]. */
export function unstorableDetails(value: unknown): { path: string; message: string }[] {
  return findUnstorable(value).map((i) => ({ path: pathText(i.path), message: i.message }));
}
