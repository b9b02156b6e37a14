import { unsubscribe, verifyUnsubscribe } from "./digest";

const page = (status: number, lang: string, body: string) =>
  new Response(
    `<!doctype html><html lang="${lang}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>Unsubscribe · 退订</title></head><body><main>${body}</main></body></html>`,
    { status, headers: { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" } },
  );

const attr = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
// A new Response each time: a Response's body can be read only once, so a shared one would answer
// every refusal after the first with an empty, broken reply.
const bad = () => page(400, "en", '<h1>This unsubscribe link is not valid.</h1><p lang="zh-CN">退订链接无效。</p>');

/**
 * GET /api/digest/unsubscribe?u=&s=: a page with one button (a link scanner's GET changes nothing).
 * POST with the same query (the button, or a mail client's RFC 8058 one-click POST with
 * `List-Unsubscribe=One-Click`): the learner is opted out of the digest. A bad signature is a 400
 * that changes nothing.
 */
export async function unsubscribePage(req: Request): Promise<Response> {
  const url = new URL(req.url);
  const u = url.searchParams.get("u");
  const s = url.searchParams.get("s");
  if (!verifyUnsubscribe(u, s)) return bad();
  const action = `/api/digest/unsubscribe?u=${encodeURIComponent(u)}&s=${encodeURIComponent(s!)}`;
  return page(
    200,
    "en",
    `<h1>Daily review digest · 每日复习提醒</h1><form method="post" action="${attr(action)}"><button type="submit">Unsubscribe · 退订</button></form>`,
  );
}

export async function unsubscribeRequest(req: Request): Promise<Response> {
  const url = new URL(req.url);
  const u = url.searchParams.get("u");
  if (!verifyUnsubscribe(u, url.searchParams.get("s"))) return bad();
  await unsubscribe(u);
  return page(
    200,
    "en",
    '<h1>You are unsubscribed from the daily review digest.</h1><p lang="zh-CN">已退订每日复习提醒。</p>',
  );
}
