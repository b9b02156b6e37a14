import { createCallerFactory, router } from "./init";
import { adminJobsRouter } from "./routers/admin-jobs";
import { adminRuntimeKeysRouter } from "./routers/admin-runtime-keys";
import { consentRouter } from "./routers/consent";
import { credentialsRouter } from "./routers/credentials";
import { jobsRouter } from "./routers/jobs";
import { meRouter } from "./routers/me";
import { snapshotsRouter } from "./routers/snapshots";

export const appRouter = router({
  me: meRouter,
  jobs: jobsRouter,
  snapshots: snapshotsRouter,
  consent: consentRouter,
  credentials: credentialsRouter,
  admin: router({ jobs: adminJobsRouter, runtimeKeys: adminRuntimeKeysRouter }),
});

export type AppRouter = typeof appRouter;
export const createCaller = createCallerFactory(appRouter);
