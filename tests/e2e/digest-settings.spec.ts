import { expect, request, test, type Page } from "@playwright/test";
import { closeDb } from "@/server/db";
import { digestSettings, unsubscribeLink } from "@/server/notifications/digest";
import { expectAccessible } from "./a11y";
import { trpc } from "./admin-helpers";
import { signIn } from "./learner-helpers";
import { createNewLearner, e2eAuthSecret, e2eDatabaseUrl } from "./new-learner";

/**
 * The daily review digest on the account page, in English and in 简体中文 (each in a browser on
 * another time zone, which is saved with the choice): the server's quiet hours and "no SMTP here"
 * are shown; opting in at a chosen hour and opting out are saved (the page after a reload and the
 * app's own read of the database agree); an hour in the quiet hours is saved and the message names
 * the hour the digest really goes out (the end of the quiet hours); an hour the form does not offer
 * (a tampered option) or a tampered request is refused with a message in the learner's language,
 * chosen by the error's code, and changes nothing; the digest's signed
 * unsubscribe link (made by the server's own signing function) shows a button that opts out — its
 * GET changes nothing, a wrong signature is refused — and a mail client's RFC 8058 one-click POST
 * opts out too; the account page then shows the digest off.
 */
test.describe.configure({ mode: "serial" });

const WORDS = {
  en: {
    title: "Daily review digest by email",
    noSmtp: "This server has no email (SMTP) settings, so no digest can be sent for now.",
    optIn: "Email me each day the cards to review and my plan's first step",
    hour: "Send it at (your local time)",
    quiet: (s: number, e: number) => `Never sent in quiet hours (${s}:00–${e}:00); a digest due then comes at ${e}:00.`,
    save: "Save",
    savedOn: (h: number) => `Saved: a digest each day at ${h}:00.`,
    savedMoved: (h: number, s: number) =>
      `Saved: ${h}:00 is in the quiet hours, so the digest is moved out of them and comes each day at ${s}:00.`,
    savedOff: "Saved: no digest.",
    error: "Could not save: that hour or time zone is not one this page offers. Reload the page and try again.",
    timeZone: "America/New_York",
  },
  "zh-CN": {
    title: "每日复习邮件提醒",
    noSmtp: "此服务器没有设置邮件（SMTP），暂时无法发送提醒。",
    optIn: "每天给我发邮件：要复习的卡片和学习计划的第一步",
    hour: "发送时间（你的当地时间）",
    quiet: (s: number, e: number) => `免打扰时段（${s}:00–${e}:00）内不发送；落在其中的提醒在 ${e}:00 发出。`,
    save: "保存",
    savedOn: (h: number) => `已保存：每天 ${h}:00 发送提醒。`,
    savedMoved: (h: number, s: number) => `已保存：${h}:00 在免打扰时段内，提醒移出免打扰时段，改为每天 ${s}:00 发送。`,
    savedOff: "已保存：不发送提醒。",
    error: "未能保存：该时间或时区不是本页提供的选项。请刷新页面后重试。",
    timeZone: "Asia/Shanghai",
  },
} as const;

test.beforeAll(() => {
  // The app's own read of the digest settings and its own unsubscribe signature, on the e2e server's database and secret.
  process.env.DATABASE_URL = e2eDatabaseUrl();
  process.env.BETTER_AUTH_SECRET = e2eAuthSecret();
  process.env.BETTER_AUTH_URL = new URL(test.info().project.use.baseURL!).origin;
});
test.afterAll(() => closeDb());

async function shot(page: Page, name: string) {
  await page.screenshot({ path: `test-results/screenshots/digest-${name}.png`, fullPage: true });
  await expectAccessible(page, `digest ${name}`);
}

/** The settings as the app reads them from the database, less what is the server's rather than the learner's. */
async function stored(userId: string) {
  const { optIn, hour, timeZone } = await digestSettings(userId);
  return { optIn, hour, timeZone };
}

for (const locale of ["en", "zh-CN"] as const) {
  test.describe(`digest settings (${locale})`, () => {
    test.use({ timezoneId: WORDS[locale].timeZone });

    test(`[LEARNER] opt in at an hour, refuse bad input, opt out, unsubscribe by the signed link (${locale})`, async ({
      page,
    }) => {
      test.setTimeout(180_000);
      const w = WORDS[locale];
      const who = await createNewLearner();
      await signIn(page, who);
      expect((await trpc(page.request, "account.setLocale", { locale }, "mutation")).status).toBe(200);

      await page.goto("/account");
      await expect(page.locator("html")).toHaveAttribute("lang", locale);
      const section = page.getByRole("region", { name: w.title });
      const optIn = section.getByRole("checkbox", { name: w.optIn });
      const hour = section.getByLabel(w.hour);
      const save = section.getByRole("button", { name: w.save, exact: true });
      const status = section.getByRole("status");
      const alert = section.getByRole("alert");
      const server = await digestSettings(who.id);

      // A new learner: no digest, at 8:00 by default; the server's quiet hours and its lack of SMTP are said.
      expect(await stored(who.id)).toEqual({ optIn: false, hour: 8, timeZone: null });
      await expect(optIn).not.toBeChecked();
      await expect(hour).toHaveValue("8");
      await expect(section.getByText(w.quiet(server.quietStart, server.quietEnd))).toBeVisible();
      await expect(section.getByTestId("digest-no-smtp")).toHaveText(w.noSmtp);
      await shot(page, `${locale}-default`);

      // Opt in at 18:00: saved with the browser's time zone, and still so after a reload.
      await optIn.check();
      await hour.selectOption("18");
      await save.click();
      await expect(status).toHaveText(w.savedOn(18));
      await expect(alert).toHaveCount(0);
      expect(await stored(who.id)).toEqual({ optIn: true, hour: 18, timeZone: w.timeZone });
      await page.reload();
      await expect(optIn).toBeChecked();
      await expect(hour).toHaveValue("18");
      await shot(page, `${locale}-opted-in`);

      // An hour the form does not offer (its option tampered with) with opt-out: refused, said, nothing saved.
      await hour.evaluate((el) => {
        (el as HTMLSelectElement).options[23]!.value = "24";
      });
      await optIn.uncheck();
      await hour.selectOption("24");
      await save.click();
      // In the learner's language, chosen by the error's code: the server's own English text is not shown.
      await expect(alert).toHaveText(w.error);
      await expect(alert).not.toContainText("input does not match");
      await expect(alert).not.toContainText("schema");
      await expect(status).toHaveText("");
      await shot(page, `${locale}-refused`);
      expect(await stored(who.id)).toEqual({ optIn: true, hour: 18, timeZone: w.timeZone });
      // The same through a tampered request: a 400 with a code and a message, and still nothing saved.
      for (const input of [
        { optIn: false, hour: -1 },
        { optIn: false, hour: 7.5 },
        { optIn: false, hour: 7, timeZone: "Europe/Paris; DROP" },
      ]) {
        const res = await trpc(page.request, "account.setDigest", input, "mutation");
        expect(res.status, JSON.stringify(input)).toBe(400);
        expect(res.error?.data?.appCode).toBe("INVALID_REQUEST");
        expect(res.error?.message).toBe("input does not match the procedure's schema");
      }
      expect(await stored(who.id)).toEqual({ optIn: true, hour: 18, timeZone: w.timeZone });
      await page.reload();
      await expect(optIn).toBeChecked();
      await expect(hour).toHaveValue("18");

      // An hour in the quiet hours (the e2e server's are the default 22–7): saved as chosen, and the
      // message names the hour the sender really uses, the end of the quiet hours.
      expect([server.quietStart, server.quietEnd]).toEqual([22, 7]);
      await hour.selectOption("23");
      await save.click();
      await expect(status).toHaveText(w.savedMoved(23, 7));
      await expect(alert).toHaveCount(0);
      expect(await stored(who.id)).toEqual({ optIn: true, hour: 23, timeZone: w.timeZone });
      expect((await digestSettings(who.id)).sendHour).toBe(7);
      await page.reload();
      await expect(hour).toHaveValue("23");

      // Another hour (6:00, also quiet: sent at 7:00), then opt out and back in: each saved and shown after a reload.
      await hour.selectOption("6");
      await save.click();
      await expect(status).toHaveText(w.savedMoved(6, 7));
      expect(await stored(who.id)).toEqual({ optIn: true, hour: 6, timeZone: w.timeZone });
      await optIn.uncheck();
      await save.click();
      await expect(status).toHaveText(w.savedOff);
      expect(await stored(who.id)).toEqual({ optIn: false, hour: 6, timeZone: w.timeZone });
      await page.reload();
      await expect(optIn).not.toBeChecked();
      await expect(hour).toHaveValue("6");
      await optIn.check();
      await save.click();
      await expect(status).toHaveText(w.savedMoved(6, 7));
      expect(await stored(who.id)).toEqual({ optIn: true, hour: 6, timeZone: w.timeZone });

      // The digest's unsubscribe link: a wrong signature is refused and a GET only shows the button.
      const link = await unsubscribeLink(who.id);
      expect(new URL(link).origin).toBe(new URL(page.url()).origin);
      const forged = link.replace(/s=([^&]+)$/, (_, s: string) => `s=${s.slice(0, -1)}${s.endsWith("A") ? "B" : "A"}`);
      expect(forged).not.toBe(link);
      const refused = await page.goto(forged);
      expect(refused?.status()).toBe(400);
      await expect(page.getByRole("heading", { level: 1 })).toHaveText("This unsubscribe link is not valid.");
      // Refused again (each refusal is a whole page, not only the first), by POST as a mail client would.
      const refusedPost = await page.request.post(forged, { form: { "List-Unsubscribe": "One-Click" } });
      expect(refusedPost.status()).toBe(400);
      expect(await refusedPost.text()).toContain("This unsubscribe link is not valid.");
      expect(await stored(who.id)).toEqual({ optIn: true, hour: 6, timeZone: w.timeZone });

      const shown = await page.goto(link);
      expect(shown?.status()).toBe(200);
      const unsubscribe = page.getByRole("button", { name: "Unsubscribe · 退订" });
      await expect(unsubscribe).toBeVisible();
      await expectAccessible(page, `digest ${locale}: unsubscribe page`);
      expect((await stored(who.id)).optIn, "a GET of the link changes nothing").toBe(true);
      await unsubscribe.click();
      await expect(page.getByRole("heading", { level: 1 })).toHaveText(
        "You are unsubscribed from the daily review digest.",
      );
      expect(await stored(who.id)).toEqual({ optIn: false, hour: 6, timeZone: w.timeZone });
      await page.goto("/account");
      await expect(optIn).not.toBeChecked();
      await expect(hour).toHaveValue("6");
      await shot(page, `${locale}-unsubscribed`);

      // Opted in again: the link sent under the last opt-in is retired (410, nothing changed); a mail
      // client's one-click POST (RFC 8058) of the new digest's link opts out, without a session.
      await optIn.check();
      await save.click();
      await expect(status).toHaveText(w.savedMoved(6, 7));
      expect((await stored(who.id)).optIn).toBe(true);
      const mailClient = await request.newContext();
      const retired = await mailClient.post(link, { form: { "List-Unsubscribe": "One-Click" } });
      expect(retired.status()).toBe(410);
      expect((await stored(who.id)).optIn).toBe(true);
      const fresh = await unsubscribeLink(who.id);
      expect(fresh).not.toBe(link);
      const oneClick = await mailClient.post(fresh, { form: { "List-Unsubscribe": "One-Click" } });
      expect(oneClick.status()).toBe(200);
      await mailClient.dispose();
      expect((await stored(who.id)).optIn).toBe(false);
      await page.reload();
      await expect(optIn).not.toBeChecked();
    });
  });
}
