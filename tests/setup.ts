import { afterAll } from "vitest";
import { closeDb } from "@/server/db";
import { resetClock } from "@/server/clock";
import { stopJobFeed } from "@/server/events/job-feed";

if (!process.env.DATABASE_URL) throw new Error("run the tests with `npm test`: it starts PostgreSQL and sets DATABASE_URL");

afterAll(async () => {
  resetClock();
  await stopJobFeed();
  await closeDb();
});
