"use client";

import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { createTRPCClient, httpBatchLink } from "@trpc/client";
import { useState } from "react";
import { z } from "zod";
import type { AppRouter } from "@/server/trpc/root";
import { TRPCProvider } from "./client";

// The page CSP forbids eval (docs/security.md); zod would otherwise probe `Function("")` on its
// first object parse in the browser, which the CSP refuses and reports as a violation.
z.config({ jitless: true });

function makeQueryClient() {
  return new QueryClient({
    defaultOptions: {
      // Live views refresh through Server-Sent Events; this is the fallback freshness.
      queries: { staleTime: 5_000, refetchOnWindowFocus: true, retry: 1 },
    },
  });
}

/** TanStack Query + tRPC for client components; one QueryClient per browser tab. */
export function TrpcProvider({ children }: { children: React.ReactNode }) {
  const [queryClient] = useState(makeQueryClient);
  const [trpcClient] = useState(() => createTRPCClient<AppRouter>({ links: [httpBatchLink({ url: "/api/trpc" })] }));
  return (
    <QueryClientProvider client={queryClient}>
      <TRPCProvider trpcClient={trpcClient} queryClient={queryClient}>
        {children}
      </TRPCProvider>
    </QueryClientProvider>
  );
}
