import { TRPCError } from "@trpc/server";

/** "ok" when the call succeeds, else the TRPCError's code (any other error is rethrown). */
export async function codeOf(promise: Promise<unknown>) {
  try {
    await promise;
    return "ok";
  } catch (e) {
    if (e instanceof TRPCError) return e.code;
    throw e;
  }
}
