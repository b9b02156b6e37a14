// The tether of `npm run dev` / `npm run demo` (scripts/dev.ts, startTether in processes.ts): it
// ends what dev started when dev ends, however dev ends. Its stdin is a pipe whose only writer is
// dev, so the kernel closes it when dev exits — after a SIGKILL too, when no handler of dev's runs.
// dev writes one line per thing to end:
//   group <pgid>          a child's process group (next, the Runtime): SIGTERM, then SIGKILL
//   pid <pid> <signal>    one process (the embedded postmaster: SIGINT, its fast shutdown)
//   done <pid>            it has ended by itself: forget it (its pid may be reused)
// Plain JavaScript, started with `node`: it must be up before dev starts anything, and cheaply.
import process from "node:process";

/** How long what was asked to stop may take before it is killed (next-server and the Runtime's grace). */
const GRACE_MS = 10_000;
const targets = new Map(); // pid → { group, signal }
let buffered = "";

process.stdin.setEncoding("utf8");
process.stdin.on("data", (text) => {
  buffered += text;
  const lines = buffered.split("\n");
  buffered = lines.pop() ?? "";
  for (const line of lines) {
    const [what, id, signal] = line.trim().split(/\s+/);
    const pid = Number(id);
    if (!Number.isInteger(pid) || pid <= 1) continue;
    if (what === "group") targets.set(pid, { group: true, signal: "SIGTERM" });
    else if (what === "pid") targets.set(pid, { group: false, signal: signal || "SIGTERM" });
    else if (what === "done") targets.delete(pid);
  }
});
process.stdin.on("close", () => void endAll());
// Dev's terminal going away is dev's business; this process only follows dev.
for (const s of ["SIGINT", "SIGHUP"]) process.on(s, () => {});

function send(pid, { group }, signal) {
  try {
    process.kill(group ? -pid : pid, signal);
    return true;
  } catch {
    return false; // gone already
  }
}

async function endAll() {
  for (const [pid, t] of targets) if (!send(pid, t, t.signal)) targets.delete(pid);
  const until = Date.now() + GRACE_MS;
  while (targets.size && Date.now() < until) {
    await new Promise((r) => setTimeout(r, 100));
    for (const [pid, t] of targets) if (!send(pid, t, 0)) targets.delete(pid);
  }
  for (const [pid, t] of targets) send(pid, t, "SIGKILL");
  process.exit(0);
}
