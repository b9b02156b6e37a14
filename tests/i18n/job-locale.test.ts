import { describe, expect, it } from "vitest";
import { getDb } from "@/server/db";
import { rerunJob } from "@/server/jobs/rerun";
import { runPipeline, pipelineInput } from "@/server/pipeline/run-pipeline";
import { localProvider } from "@/server/providers/local";
import { leasedJob } from "@/server/runtime-api/contract";
import { callerAs, callerFromHeaders, setPassword, signedInCookie } from "../helpers/auth";
import { createLearner, createTestJob, jobRow, runtimeKey, uid } from "../helpers/factories";
import { platform, serviceKey } from "../helpers/platform-api";
import { runtime } from "../helpers/runtime-api";

const HAN = /\p{Script=Han}/u;
const PASSWORD = "a-long-password-1";

async function signedInLearner() {
  const learner = await createLearner();
  await setPassword(learner.user.id, PASSWORD);
  const cookie = await signedInCookie(learner.user.email, PASSWORD);
  return { ...learner, cookie };
}

describe("a job records the language it is produced in", () => {
  it("from the learner page: the request's language when none is saved, the saved one when it is", async () => {
    const { user, cookie } = await signedInLearner();
    const target = { type: "user" as const, id: user.id };
    const trigger = async (headers: Record<string, string>) =>
      (
        await (
          await callerFromHeaders({ cookie, ...headers })
        ).analyses.trigger({
          target,
          jobTypes: ["weak_point_analysis"],
        })
      ).items[0]!;

    // No saved language: the browser's Accept-Language decides.
    const zh = await trigger({ "accept-language": "zh-CN,zh;q=0.9,en;q=0.5" });
    expect(zh).toMatchObject({ created: true, job: { locale: "zh-CN" } });
    expect((await jobRow(zh.job.id)).locale).toBe("zh-CN");
    // The same analysis in the same language while it is in flight: that job again.
    const again = await trigger({ "accept-language": "zh" });
    expect(again).toMatchObject({ created: false, job: { id: zh.job.id } });
    // In another language it is another analysis: a new job, in English.
    const en = await trigger({ "accept-language": "en-GB" });
    expect(en.created).toBe(true);
    expect(en.job.id).not.toBe(zh.job.id);
    expect((await jobRow(en.job.id)).locale).toBe("en");

    // The cookie a language switcher set beats the browser (the job in flight answers: same language).
    const byCookie = await trigger({ cookie: `${cookie}; locale=zh-CN`, "accept-language": "en" });
    expect(byCookie).toMatchObject({ created: false, job: { id: zh.job.id, locale: "zh-CN" } });

    // A saved language beats both.
    await callerAs(user).account.setLocale({ locale: "en" });
    const saved = await trigger({ cookie: `${cookie}; locale=zh-CN`, "accept-language": "zh-CN" });
    expect(saved).toMatchObject({ created: false, job: { id: en.job.id, locale: "en" } });
  });

  it("jobs.create and scripts without a request: the learner's saved language, else English", async () => {
    const learner = await createLearner();
    expect((await createTestJob(learner)).locale).toBe("en");
    await getDb().user.update({ where: { id: learner.user.id }, data: { locale: "zh-CN" } });
    expect((await createTestJob(learner)).locale).toBe("zh-CN");
    // A saved value the app does not know (written outside it) is no language: the request's, else English.
    await getDb().user.update({ where: { id: learner.user.id }, data: { locale: "tlh" } });
    expect((await createTestJob(learner)).locale).toBe("en");
    expect((await createTestJob(learner, "learning_state_analysis", { requestLocale: "zh-CN" })).locale).toBe("zh-CN");
  });

  it("from the platform API: the learner's locale, or the one the request names", async () => {
    const api = platform(await serviceKey());
    const ext = uid("ext");
    await api.putLearner(ext, { name: "李明", locale: "zh-CN", aiConsent: true });
    const body = { jobType: "learning_state_analysis", target: { type: "user" } };

    const started = await api.startJob(ext, body);
    expect(started.status).toBe(201);
    expect(started.body.job.locale).toBe("zh-CN");
    expect((await jobRow(started.body.job.id)).locale).toBe("zh-CN");
    expect((await api.getJob(started.body.job.id)).body.locale).toBe("zh-CN");

    const english = await api.startJob(ext, { ...body, locale: "en" });
    expect(english.status).toBe(201);
    expect(english.body.job).toMatchObject({ locale: "en" });

    const jobs = await getDb().aiRuntimeJob.count({ where: { user: { externalId: ext } } });
    for (const locale of ["fr", "ZH-cn", "", null, 1, { toString: "zh-CN" }, "zh-CN\u0000"]) {
      const refused = await api.startJob(ext, { ...body, locale });
      expect(refused.status, JSON.stringify(locale)).toBe(400);
      expect(refused.body.error.code).toBe("INVALID_REQUEST");
    }
    expect(await getDb().aiRuntimeJob.count({ where: { user: { externalId: ext } } })).toBe(jobs);
  });

  it("an admin re-run keeps the job's language, whatever the learner chose since", async () => {
    const learner = await createLearner();
    const job = await createTestJob(learner, "weak_point_analysis", { locale: "zh-CN" });
    const rt = runtime(await runtimeKey(), uid("rt"));
    expect((await rt.lock(job.id)).status).toBe(200);
    expect((await rt.fail(job.id, 1, "INVALID_SCHEMA")).body.status).toBe("failed");
    await getDb().user.update({ where: { id: learner.user.id }, data: { locale: "en" } });

    const { job: rerun } = await rerunJob(job.id, { type: "admin", id: "admin" });
    expect(rerun.locale).toBe("zh-CN");
    expect(rerun.retriedFromJobId).toBe(job.id);
  });
});

describe("the Runtime receives the language and writes in it", () => {
  it("lock and claim deliver `locale`; the local analyzer's output is Chinese for zh-CN, English for en", async () => {
    const learner = await createLearner();
    const zh = await createTestJob(learner, "weak_point_analysis", { locale: "zh-CN" });
    const en = await createTestJob(learner, "weak_point_analysis", { locale: "en" });
    const rt = runtime(await runtimeKey(), uid("rt"));

    const locked = await rt.lock(zh.id);
    expect(locked.status).toBe(200);
    expect(locked.body.job.locale).toBe("zh-CN");
    const claimed = await rt.poll({ claim: true, limit: 50, capabilities: ["weak_point_analysis"] });
    const item = claimed.body.jobs.find((j: { job?: { id: string } }) => j.job?.id === en.id);
    expect(item).toMatchObject({ kind: "claimed", job: { locale: "en" } });

    for (const [job, lease] of [
      [zh, locked.body],
      [en, item],
    ] as const) {
      const parsed = leasedJob.parse(lease.job);
      const result = await runPipeline(pipelineInput(parsed), { provider: localProvider() });
      const stored = await rt.result(job.id, parsed.attemptNo, result.output);
      expect(stored.status, JSON.stringify(stored.body)).toBe(200);
    }
    const zhOut = (await jobRow(zh.id)).result!.output as {
      weakPoints: { evidence: string[]; suggestedReview: string }[];
    };
    const enOut = (await jobRow(en.id)).result!.output as typeof zhOut;
    expect(zhOut.weakPoints.length).toBeGreaterThan(0);
    for (const w of zhOut.weakPoints) {
      expect(w.suggestedReview).toMatch(HAN);
      expect(w.evidence[0]).toMatch(/^掌握度 \d+%，共作答 \d+ 次/);
    }
    for (const w of enOut.weakPoints) {
      expect(JSON.stringify(w)).not.toMatch(HAN);
      expect(w.evidence[0]).toMatch(/^Mastery \d+% over \d+ answers/);
    }
  });

  it("an older API that sends no locale, or a tag this Runtime does not know: English", async () => {
    const learner = await createLearner();
    const job = await createTestJob(learner, "weak_point_analysis", { locale: "zh-CN" });
    const lease = (await runtime(await runtimeKey(), uid("rt")).lock(job.id)).body.job;
    const { locale: _omitted, ...old } = lease;
    expect(leasedJob.parse(old).locale).toBe("en");
    expect(pipelineInput(leasedJob.parse(old)).locale).toBe("en");
    expect(pipelineInput({ ...leasedJob.parse(lease), locale: "ja" }).locale).toBe("en");
    expect(pipelineInput(leasedJob.parse(lease)).locale).toBe("zh-CN");
  });
});
