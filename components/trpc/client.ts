"use client";

import { createTRPCContext } from "@trpc/tanstack-react-query";
import type { AppRouter } from "@/server/trpc/root";

/** Typed hooks for the tRPC API: `const trpc = useTRPC(); useQuery(trpc.jobs.list.queryOptions(...))`. */
export const { TRPCProvider, useTRPC, useTRPCClient } = createTRPCContext<AppRouter>();
