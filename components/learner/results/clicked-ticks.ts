"use client";

import { useState } from "react";

/**
 * The click's own value for a saved checkbox until the server has answered. A controlled checkbox
 * whose value comes only from the query cache snaps back for the moment before the (asynchronous)
 * optimistic cache update lands, so a quick reader (a person, a browser test on a busy machine)
 * sees the click undone. `hold` on change, `release` when the save settles; `apply` lays the held
 * clicks over the saved set.
 */
export function useClickedTicks() {
  const [clicked, setClicked] = useState<Record<number, boolean>>({});
  return {
    apply(saved: Iterable<number>): Set<number> {
      const set = new Set(saved);
      for (const [index, on] of Object.entries(clicked)) {
        if (on) set.add(Number(index));
        else set.delete(Number(index));
      }
      return set;
    },
    hold: (index: number, on: boolean) => setClicked((c) => ({ ...c, [index]: on })),
    release: (index: number) =>
      setClicked((c) => {
        const { [index]: _settled, ...rest } = c;
        return rest;
      }),
  };
}
