import { executeJobFn } from "./execute-job";
import { notifyJobFinished } from "./notify-job-finished";
import { processBulkRunsFn } from "./process-bulk-runs";
import { pruneFinishedJobsFn } from "./prune-finished-jobs";
import { sweepLeases } from "./sweep-leases";
import { weeklyAnalyses } from "./weekly-analyses";

export const functions = [
  executeJobFn,
  sweepLeases,
  pruneFinishedJobsFn,
  weeklyAnalyses,
  notifyJobFinished,
  processBulkRunsFn,
];
