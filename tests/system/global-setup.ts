import { ensureBuilt } from "../../scripts/lib/app-server";

/** One production build for every system test file (skipped when it is newer than the sources). */
export default function setup() {
  ensureBuilt();
}
