import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { SMTPServer } from "smtp-server";
import { simpleParser, type ParsedMail } from "mailparser";
import type { AddressInfo } from "node:net";
import { getDb } from "@/server/db";
import { advanceClock, now, resetClock } from "@/server/clock";
import { callerAs } from "../helpers/auth";
import { createLearner, type Learner } from "../helpers/factories";
import { succeededJob } from "../helpers/finished-jobs";
import { digestHourReached, localClock, sendDueDigests, unsubscribeLink } from "@/server/notifications/digest";
import { GET as unsubscribeGet, POST as unsubscribePost } from "@/app/api/digest/unsubscribe/route";
import { defaultTasks } from "@/server/scheduler/tasks";

/**
 * The daily review digest, received by a real SMTP server this test starts (smtp-server) and read
 * back (mailparser): due cards and the plan's first step in the learner's language, the page's
 * link, a signed one-click unsubscribe (RFC 8058 headers; the link opts out, a forged one does
 * not), once a day at the learner's local hour, never in quiet hours; a refusing SMTP server
 * fails only the digest, recorded and retried on the next tick; no SMTP_HOST, no digest.
 */
const received: ParsedMail[] = [];
let refuse = false;
let server: SMTPServer;
let port = 0;

beforeAll(async () => {
  server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    onData(stream, _session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (c: Buffer) => chunks.push(c));
      stream.on("end", () => {
        if (refuse) return callback(Object.assign(new Error("mailbox unavailable"), { responseCode: 451 }));
        void simpleParser(Buffer.concat(chunks)).then((mail) => {
          received.push(mail);
          callback();
        });
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
afterEach(async () => {
  // Other files' alert checks run against the same database: no failed digest is left behind.
  await getDb().digestSend.deleteMany({});
  await getDb().user.updateMany({ where: { digestOptIn: true }, data: { digestOptIn: false } });
  resetClock();
  refuse = false;
  received.length = 0;
  for (const k of ["SMTP_HOST", "SMTP_PORT", "MAIL_FROM", "DIGEST_QUIET_START", "DIGEST_QUIET_END"])
    delete process.env[k];
});

function smtp() {
  process.env.SMTP_HOST = "127.0.0.1";
  process.env.SMTP_PORT = String(port);
  process.env.MAIL_FROM = "Study <digest@example.test>";
}

/** A learner opted in, in a zone where it is now exactly their digest hour (outside quiet hours). */
async function optedIn(locale: "en" | "zh-CN", timeZone: string): Promise<Learner> {
  const learner = await createLearner();
  const { hour } = localClock(now(), timeZone);
  await getDb().user.update({ where: { id: learner.user.id }, data: { locale } });
  await callerAs(learner.user).account.setDigest({ optIn: true, hour, timeZone });
  const deck = await succeededJob(learner, "flashcard_generation", { count: 3 });
  await callerAs(learner.user).review.addDeck({ jobId: deck.id });
  await succeededJob(learner, "next_action_planning");
  return learner;
}

/** A zone where the local hour now is between 09 and 20 (never in the default quiet hours). */
function daytimeZone() {
  for (const zone of [
    "UTC",
    "Asia/Shanghai",
    "America/New_York",
    "Asia/Tokyo",
    "Europe/Berlin",
    "Pacific/Auckland",
    "America/Los_Angeles",
    "Asia/Kolkata",
  ]) {
    const { hour } = localClock(now(), zone);
    if (hour >= 9 && hour <= 20) return zone;
  }
  throw new Error("no daytime zone found");
}

const mailTo = (email: string) => received.filter((m) => m.to && JSON.stringify(m.to).includes(email));

describe("the daily review digest", () => {
  it("is received in each learner's language with due cards, the plan's first step, the page link and a signed one-click unsubscribe", async () => {
    smtp();
    const zone = daytimeZone();
    const en = await optedIn("en", zone);
    const zh = await optedIn("zh-CN", zone);
    const run = await sendDueDigests();
    expect(run.failed).toBe(0);
    expect(run.sent).toBeGreaterThanOrEqual(2);

    const [english] = mailTo(en.user.email);
    expect(english!.subject).toBe("To review: 3 cards now · 0 cards later today");
    expect(english!.from?.text).toContain("digest@example.test");
    expect(english!.text).toContain("To review today: 3 cards now · 0 cards later today.");
    expect(english!.text).toMatch(/Your plan's first step: .+ \(\d+ min\)\./);
    expect(english!.text).toContain("Open your learning page: http://");
    const [chinese] = mailTo(zh.user.email);
    expect(chinese!.subject).toBe("要复习：现在 3 张 · 今天稍后 0 张");
    expect(chinese!.text).toContain("今天要复习：现在 3 张 · 今天稍后 0 张。");
    expect(chinese!.text).toMatch(/学习计划的第一步：.+（\d+ 分钟）。/);
    expect(chinese!.html).toContain('lang="zh-CN"');

    // RFC 8058: List-Unsubscribe names the signed link, List-Unsubscribe-Post says one-click.
    const link = await unsubscribeLink(zh.user.id);
    const header = (name: string) => chinese!.headerLines.find((h) => h.key === name)?.line ?? "";
    expect(header("list-unsubscribe-post")).toBe("List-Unsubscribe-Post: List-Unsubscribe=One-Click");
    expect(header("list-unsubscribe").replace(/\s+/g, "")).toContain(`<${link}>`);
    expect(chinese!.text).toContain(link);

    // A forged signature changes nothing; a GET (a link scanner) changes nothing; the one-click POST opts out.
    const forged = link.replace(/s=[^&]+$/, "s=forged");
    expect((await unsubscribePost(new Request(forged, { method: "POST" }))).status).toBe(400);
    expect((await unsubscribeGet(new Request(link))).status).toBe(200);
    expect((await getDb().user.findUniqueOrThrow({ where: { id: zh.user.id } })).digestOptIn).toBe(true);
    const body = new URLSearchParams({ "List-Unsubscribe": "One-Click" });
    expect((await unsubscribePost(new Request(link, { method: "POST", body }))).status).toBe(200);
    expect((await getDb().user.findUniqueOrThrow({ where: { id: zh.user.id } })).digestOptIn).toBe(false);

    // Once a day: the next tick sends nothing more to them.
    received.length = 0;
    await sendDueDigests();
    expect(mailTo(en.user.email)).toHaveLength(0);
    expect(mailTo(zh.user.email)).toHaveLength(0);
  });

  it("a later opt-in retires the link an earlier digest carried; an admin gets no digest", async () => {
    smtp();
    const zone = daytimeZone();
    const learner = await optedIn("en", zone);
    const admin = await optedIn("en", zone);
    await getDb().user.update({ where: { id: admin.user.id }, data: { role: "admin" } });
    await sendDueDigests();
    expect(mailTo(admin.user.email)).toHaveLength(0);
    const [first] = mailTo(learner.user.email);
    const old = await unsubscribeLink(learner.user.id);
    expect(first!.text).toContain(old);

    // She unsubscribes with it, then opts in again: the old link (forwarded, say) no longer works.
    const oneClick = () => new URLSearchParams({ "List-Unsubscribe": "One-Click" });
    expect((await unsubscribePost(new Request(old, { method: "POST", body: oneClick() }))).status).toBe(200);
    const { hour } = localClock(now(), zone);
    await callerAs(learner.user).account.setDigest({ optIn: true, hour, timeZone: zone });
    const fresh = await unsubscribeLink(learner.user.id);
    expect(fresh).not.toBe(old);
    expect((await unsubscribeGet(new Request(old))).status).toBe(410);
    expect((await unsubscribePost(new Request(old, { method: "POST", body: oneClick() }))).status).toBe(410);
    expect((await getDb().user.findUniqueOrThrow({ where: { id: learner.user.id } })).digestOptIn).toBe(true);
    // Saving the hour again is not a new opt-in: the current link stays good, and opts her out.
    await callerAs(learner.user).account.setDigest({ optIn: true, hour, timeZone: zone });
    expect(await unsubscribeLink(learner.user.id)).toBe(fresh);
    expect((await unsubscribePost(new Request(fresh, { method: "POST", body: oneClick() }))).status).toBe(200);
    expect((await getDb().user.findUniqueOrThrow({ where: { id: learner.user.id } })).digestOptIn).toBe(false);
  });

  it("waits for the learner's hour and for the end of quiet hours", async () => {
    smtp();
    const zone = daytimeZone();
    const learner = await optedIn("en", zone);
    const { hour } = localClock(now(), zone);
    await callerAs(learner.user).account.setDigest({
      optIn: true,
      hour: hour + 1 > 23 ? 23 : hour + 1,
      timeZone: zone,
    });
    await sendDueDigests();
    expect(mailTo(learner.user.email)).toHaveLength(0);
    advanceClock(60 * 60_000);
    await sendDueDigests();
    expect(mailTo(learner.user.email)).toHaveLength(1);
  });

  it("saving answers the hour the digest really goes out: the chosen one, or the end of quiet hours", async () => {
    const learner = await createLearner();
    const account = callerAs(learner.user).account;
    const cases: [quiet: [number, number] | null, hour: number, sendHour: number][] = [
      [null, 18, 18],
      [null, 21, 21],
      [null, 22, 7],
      [null, 23, 7],
      [null, 0, 7],
      [null, 6, 7],
      [null, 7, 7],
      [[20, 9], 23, 9],
      [[20, 9], 19, 19],
      [[1, 5], 3, 5],
      [[1, 5], 23, 23],
    ];
    for (const [quiet, hour, sendHour] of cases) {
      if (quiet) [process.env.DIGEST_QUIET_START, process.env.DIGEST_QUIET_END] = quiet.map(String);
      else for (const k of ["DIGEST_QUIET_START", "DIGEST_QUIET_END"]) delete process.env[k];
      const saved = await account.setDigest({ optIn: true, hour, timeZone: "UTC" });
      expect({ quiet, hour, sendHour: saved.sendHour }).toEqual({ quiet, hour, sendHour });
      expect(saved.hour).toBe(hour);
      expect((await account.digest()).sendHour).toBe(sendHour);
      // The sender agrees: over a local day from midnight, the first hour it sends at is that hour.
      const [start, end] = quiet ?? [22, 7];
      const firstSent = Array.from({ length: 24 }, (_, h) => h).find((h) => digestHourReached(h, hour, start, end));
      expect(firstSent).toBe(sendHour);
    }
  });

  it("a refusing SMTP server fails only the digest: recorded for admins, retried on the next tick", async () => {
    smtp();
    const learner = await optedIn("en", daytimeZone());
    refuse = true;
    const failed = await sendDueDigests();
    expect(failed.failed).toBeGreaterThanOrEqual(1);
    const row = await getDb().digestSend.findFirstOrThrow({ where: { userId: learner.user.id } });
    expect(row).toMatchObject({ status: "failed", attempts: 1 });
    expect(row.lastError).toMatch(/451|mailbox unavailable/);
    refuse = false;
    await sendDueDigests();
    expect(mailTo(learner.user.email)).toHaveLength(1);
    expect(await getDb().digestSend.findFirstOrThrow({ where: { userId: learner.user.id } })).toMatchObject({
      status: "sent",
      attempts: 2,
    });
  });

  it("an unreachable SMTP server never throws out of the scheduler's task", async () => {
    process.env.SMTP_HOST = "127.0.0.1";
    process.env.SMTP_PORT = "1";
    const learner = await optedIn("en", daytimeZone());
    const task = defaultTasks().find((t) => t.id === "review-digests")!;
    const run = (await task.run()) as { failed: number };
    expect(run.failed).toBeGreaterThanOrEqual(1);
    expect((await getDb().digestSend.findFirstOrThrow({ where: { userId: learner.user.id } })).status).toBe("failed");
  });

  it("without SMTP settings no digest is sent, and the account page is told so", async () => {
    const learner = await optedIn("en", daytimeZone());
    expect(await sendDueDigests()).toMatchObject({ sent: 0, skipped: "no SMTP_HOST" });
    expect(await getDb().digestSend.count({ where: { userId: learner.user.id } })).toBe(0);
    expect(await callerAs(learner.user).account.digest()).toMatchObject({ optIn: true, mailConfigured: false });
  });
});

describe("admins see failing digests", () => {
  it("as a console alert and a metrics gauge while a digest has failed in the last day", async () => {
    const { getAlerts } = await import("@/server/observability/alerts");
    process.env.SMTP_HOST = "127.0.0.1";
    process.env.SMTP_PORT = "1";
    await optedIn("en", daytimeZone());
    await sendDueDigests();
    const { alerts } = await getAlerts();
    expect(alerts.find((a) => a.code === "DIGEST_FAILING")?.message).toMatch(
      /review digest emails? failed in the last 24 h/,
    );
  });
});
