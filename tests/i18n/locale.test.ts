import { describe, expect, it } from "vitest";
import { getDb } from "@/server/db";
import { fromAcceptLanguage, matchLocale, resolveLocale } from "@/server/i18n/locales";
import { callerAs, callerFromHeaders, setPassword, signedInCookie } from "../helpers/auth";
import { createLearner } from "../helpers/factories";
import { trpcHttp } from "../helpers/trpc-route";

describe("choosing the learner's language", () => {
  it("reads Accept-Language by q-value; any Chinese is zh-CN, any English en, the rest nothing", () => {
    expect(fromAcceptLanguage("zh-CN,zh;q=0.9,en;q=0.8")).toBe("zh-CN");
    expect(fromAcceptLanguage("en-US,en;q=0.9,zh-CN;q=0.8")).toBe("en");
    expect(fromAcceptLanguage("fr-FR,fr;q=0.9,zh-Hans;q=0.5,en;q=0.4")).toBe("zh-CN");
    expect(fromAcceptLanguage("en;q=0.2, zh-TW;q=0.7")).toBe("zh-CN");
    expect(fromAcceptLanguage("de, fr;q=0.5")).toBeNull();
    expect(fromAcceptLanguage("zh;q=0, en")).toBe("en");
    expect(fromAcceptLanguage("*")).toBeNull();
    expect(fromAcceptLanguage("")).toBeNull();
    expect(fromAcceptLanguage(null)).toBeNull();
    expect(fromAcceptLanguage("zh;q=abc")).toBeNull();
    expect(matchLocale("ZH_cn")).toBe("zh-CN");
    expect(matchLocale("english")).toBeNull();
  });

  it("prefers the saved choice, then the cookie, then the browser, then English", () => {
    expect(resolveLocale({ saved: "zh-CN", cookie: "en", acceptLanguage: "en" })).toBe("zh-CN");
    expect(resolveLocale({ saved: null, cookie: "zh-CN", acceptLanguage: "en" })).toBe("zh-CN");
    expect(resolveLocale({ saved: "fr", cookie: "__proto__", acceptLanguage: "zh-CN" })).toBe("zh-CN");
    expect(resolveLocale({ acceptLanguage: "ja" })).toBe("en");
    expect(resolveLocale({})).toBe("en");
  });
});

describe("account.setLocale", () => {
  it("saves the learner's language, and the next session read carries it", async () => {
    const { user } = await createLearner();
    await setPassword(user.id, "a-long-password-1");
    const cookie = await signedInCookie(user.email, "a-long-password-1");
    expect((await (await callerFromHeaders({ cookie })).me.get())?.user.locale).toBeUndefined();

    await expect(callerAs(user).account.setLocale({ locale: "zh-CN" })).resolves.toEqual({ locale: "zh-CN" });
    expect((await getDb().user.findUniqueOrThrow({ where: { id: user.id } })).locale).toBe("zh-CN");
    expect((await (await callerFromHeaders({ cookie })).me.get())?.user.locale).toBe("zh-CN");

    await callerAs(user).account.setLocale({ locale: "en" });
    expect((await (await callerFromHeaders({ cookie })).me.get())?.user.locale).toBe("en");
  });

  it("refuses anonymous callers", async () => {
    await expect(callerAs(null).account.setLocale({ locale: "en" })).rejects.toMatchObject({ code: "UNAUTHORIZED" });
  });

  it("answers hostile or unknown languages with a 4xx and a code over HTTP, and changes nothing", async () => {
    const { user } = await createLearner();
    await setPassword(user.id, "a-long-password-1");
    const cookie = await signedInCookie(user.email, "a-long-password-1");
    await callerAs(user).account.setLocale({ locale: "en" });
    const hostile: unknown[] = [
      { locale: "fr" },
      { locale: "" },
      { locale: "zh-CN\u0000" },
      { locale: "zh-\ud800" },
      { locale: "__proto__" },
      { locale: "toString" },
      { locale: ["zh-CN"] },
      { locale: { toString: "zh-CN" } },
      { locale: 1 },
      { locale: "zh-CN".repeat(10_000) },
      JSON.parse('{"__proto__": {"locale": "zh-CN"}}'),
      null,
    ];
    for (const input of hostile) {
      const res = await trpcHttp("mutation", "account.setLocale", input, { cookie });
      expect(res.status, JSON.stringify(input)?.slice(0, 80)).toBeGreaterThanOrEqual(400);
      expect(res.status).toBeLessThan(500);
      expect(res.body.error.data.code ?? res.body.error.code).toBeTruthy();
    }
    expect((await getDb().user.findUniqueOrThrow({ where: { id: user.id } })).locale).toBe("en");
  });
});
