import { norm } from "../fields";
import { singular } from "../shared/terms";

/**
 * A knowledge point's title as proposals and a material's points compare it: NFKC, case and spaces
 * aside, English words singular ("Alkalis" is "Alkali", "Branches" is "Branch").
 */
export const titleKey = (title: string) =>
  norm(title)
    .split(" ")
    .map((w) => (/\p{Script=Han}/u.test(w) ? w : singular(w)))
    .join(" ");
