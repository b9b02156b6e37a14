import type { NextApiRequest, NextApiResponse } from "next";
import { serveRuntimeApi } from "@/server/runtime-api/node-http";

/**
 * The Runtime protocol at /internal/runtime/jobs/* (next.config.js rewrites it here). A Pages API
 * route on purpose: it hands us Node's request and response as they are, which costs a third of
 * an App Router handler's per-request work (bench-results/latest.md), and this is the hot path.
 */
export const config = { api: { bodyParser: false, responseLimit: false } };

export default function handler(req: NextApiRequest, res: NextApiResponse) {
  const path = req.query.path;
  return serveRuntimeApi(req, res, Array.isArray(path) ? path : path ? [path] : []);
}
