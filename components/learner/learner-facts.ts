"use client";

import { useQueryClient } from "@tanstack/react-query";
import { useCallback } from "react";
import { refreshAfterWrite } from "@/components/trpc/refresh";
import { useTRPC } from "@/components/trpc/client";

/**
 * Re-reads every view of the learner model's facts — Review, the top line, the mastery chart —
 * after something changed them (a rating, a deck joining, a card set aside, a quiz submitted, a
 * job finished). Reads in flight from before the change are dropped, so none has the last word.
 */
export function useRefreshFacts() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  return useCallback(
    () => refreshAfterWrite(queryClient, trpc.review.pathFilter(), trpc.progress.pathFilter()),
    [queryClient, trpc],
  );
}
