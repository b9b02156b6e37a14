import { LOCALES, type Locale } from "@/server/i18n/locales";
import { LEARNER_SORTS as SORTS, type LearnerSort as Sort } from "@/server/account/learner-sorts";

/** The Learners page's URL state. */

export type LearnerView = {
  search: string;
  page: number;
  sort: Sort;
  dir: "asc" | "desc";
  language?: Locale;
  overdue: boolean;
  forgotten: boolean;
};

/** The view from the URL (?q, page, sort, dir, lang, overdue=1, forgotten=1); unknown values fall back to the defaults. */
export function readLearnerView(p: URLSearchParams): LearnerView {
  const sort = p.get("sort");
  const lang = p.get("lang");
  const page = Number(p.get("page"));
  return {
    search: p.get("q") ?? "",
    page: Number.isInteger(page) && page >= 1 && page <= 100_000 ? page : 1,
    sort: (SORTS as readonly string[]).includes(sort ?? "") ? (sort as Sort) : "newest",
    dir: p.get("dir") === "asc" ? "asc" : "desc",
    ...((LOCALES as readonly string[]).includes(lang ?? "") ? { language: lang as Locale } : {}),
    overdue: p.get("overdue") === "1",
    forgotten: p.get("forgotten") === "1",
  };
}

/** The URL query of a view; defaults are left out. */
export function learnerViewQuery(v: LearnerView): string {
  const p = new URLSearchParams();
  if (v.search) p.set("q", v.search);
  if (v.page > 1) p.set("page", String(v.page));
  if (v.sort !== "newest") p.set("sort", v.sort);
  if (v.dir !== "desc") p.set("dir", v.dir);
  if (v.language) p.set("lang", v.language);
  if (v.overdue) p.set("overdue", "1");
  if (v.forgotten) p.set("forgotten", "1");
  return p.size ? `?${p}` : "";
}
