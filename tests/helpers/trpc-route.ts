import { GET, POST } from "@/app/api/trpc/[trpc]/route";
import { APP_URL } from "./auth";

/** Calls the real /api/trpc route handler (fetch adapter, context, error formatter) with a Request. */
export async function trpcHttp(
  type: "query" | "mutation",
  path: string,
  input: unknown,
  headers: Record<string, string> = {},
) {
  const url = new URL(`${APP_URL}/api/trpc/${path}`);
  let res: Response;
  if (type === "query") {
    if (input !== undefined) url.searchParams.set("input", JSON.stringify(input));
    res = await GET(new Request(url, { headers }));
  } else {
    res = await POST(
      new Request(url, {
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
        body: input === undefined ? undefined : JSON.stringify(input),
      }),
    );
  }
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, body: text ? JSON.parse(text) : null };
}
