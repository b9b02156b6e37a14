import { currentOptIn, unsubscribe, verifyUnsubscribe } from "./digest";

const page = (status: number, lang: string, body: string) =>
  new Response(
    `<!doctype html><html lang="${lang}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>Unsubscribe · 退订</title></head><body><main>${body}</main></body></html>`,
    { status, headers: { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" } },
  );

const attr = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
// A new Response each time: a Response's body can be read only once, so a shared one would answer
// every refusal after the first with an empty, broken reply.
const bad = () => page(400, "en", '<h1>This unsubscribe link is not valid.</h1><p lang="zh-CN">退订链接无效。</p>');
// A link whose opt-in was followed by a new one: it no longer speaks for the learner.
const retired = () =>
  page(
    410,
    "en",
    '<h1>This unsubscribe link has expired.</h1><p>You opted in again since it was sent: use the link in a newer digest, or your account page.</p><p lang="zh-CN">此退订链接已失效：请使用较新邮件中的链接，或在账户页面中更改。</p>',
  );

/** The link's learner and opt-in, or the page that refuses it. */
async function linkOf(url: URL) {
  const link = verifyUnsubscribe(url.searchParams.get("u"), url.searchParams.get("e"), url.searchParams.get("s"));
  if (!link) return { refusal: bad() };
  if (!(await currentOptIn(link))) return { refusal: retired() };
  return { link };
}

/**
 * GET /api/digest/unsubscribe?u=&s=: a page with one button (a link scanner's GET changes nothing).
 * POST with the same query (the button, or a mail client's RFC 8058 one-click POST with
 * `List-Unsubscribe=One-Click`): the learner is opted out of the digest. A bad signature is a 400
 * that changes nothing; a link sent before the learner's latest opt-in is a 410 that changes nothing.
 */
export async function unsubscribePage(req: Request): Promise<Response> {
  const url = new URL(req.url);
  const { link, refusal } = await linkOf(url);
  if (!link) return refusal;
  const query = new URLSearchParams({ u: link.userId, ...(link.epoch ? { e: String(link.epoch) } : {}) });
  query.set("s", url.searchParams.get("s")!);
  const action = `/api/digest/unsubscribe?${query}`;
  return page(
    200,
    "en",
    `<h1>Daily review digest · 每日复习提醒</h1><form method="post" action="${attr(action)}"><button type="submit">Unsubscribe · 退订</button></form>`,
  );
}

export async function unsubscribeRequest(req: Request): Promise<Response> {
  const { link, refusal } = await linkOf(new URL(req.url));
  if (!link) return refusal;
  await unsubscribe(link);
  return page(
    200,
    "en",
    '<h1>You are unsubscribed from the daily review digest.</h1><p lang="zh-CN">已退订每日复习提醒。</p>',
  );
}
