import { createCallerFactory, router } from "./init";
import { adminJobsRouter } from "./routers/admin-jobs";
import { adminRuntimeKeysRouter } from "./routers/admin-runtime-keys";
import { adminServiceKeysRouter } from "./routers/admin-service-keys";
import { adminActionsRouter } from "./routers/admin-actions";
import { adminExplorerRouter } from "./routers/admin-explorer";
import { adminMonitorRouter } from "./routers/admin-monitor";
import { adminWebhooksRouter } from "./routers/admin-webhooks";
import { consentRouter } from "./routers/consent";
import { credentialsRouter } from "./routers/credentials";
import { jobsRouter } from "./routers/jobs";
import { meRouter } from "./routers/me";
import { accountRouter } from "./routers/account";
import { snapshotsRouter } from "./routers/snapshots";
import { targetsRouter } from "./routers/targets";
import { analysesRouter } from "./routers/analyses";
import { quizRouter } from "./routers/quiz";
import { flashcardsRouter } from "./routers/flashcards";
import { reviewRouter } from "./routers/review";
import { progressRouter } from "./routers/progress";
import { quotaRouter } from "./routers/quota";
import { adminQuotasRouter } from "./routers/admin-quotas";
import { materialsRouter } from "./routers/materials";
import { adminLearnerDataRouter } from "./routers/admin-learner-data";
import { adminLearnersRouter } from "./routers/admin-learners";

export const appRouter = router({
  me: meRouter,
  account: accountRouter,
  jobs: jobsRouter,
  snapshots: snapshotsRouter,
  consent: consentRouter,
  credentials: credentialsRouter,
  targets: targetsRouter,
  analyses: analysesRouter,
  quiz: quizRouter,
  flashcards: flashcardsRouter,
  review: reviewRouter,
  progress: progressRouter,
  quota: quotaRouter,
  materials: materialsRouter,
  admin: router({
    jobs: adminJobsRouter,
    runtimeKeys: adminRuntimeKeysRouter,
    serviceKeys: adminServiceKeysRouter,
    explorer: adminExplorerRouter,
    actions: adminActionsRouter,
    monitor: adminMonitorRouter,
    quotas: adminQuotasRouter,
    webhooks: adminWebhooksRouter,
    learnerData: adminLearnerDataRouter,
    learners: adminLearnersRouter,
  }),
});

export type AppRouter = typeof appRouter;
export const createCaller = createCallerFactory(appRouter);
