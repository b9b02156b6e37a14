import type { LeasedJob } from "../server/runtime-api/contract";
import { selectProvider } from "../server/providers/select";
import type { Provider } from "../server/providers/types";
import type { RuntimeConfig } from "./config";

/** The provider for one job, chosen by the rule every executor shares (server/providers/select.ts). */
export function providerFor(job: LeasedJob, config: RuntimeConfig): Provider {
  return selectProvider(job.model, config);
}
