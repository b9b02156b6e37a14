import { createEmptyCard, fsrs, type Card, type Grade } from "ts-fsrs";

/**
 * The spaced-repetition scheduler (FSRS, ts-fsrs): default weights, 90 % requested retention,
 * no fuzz — the same reviews always give the same schedule, so a replayed log (platform reviews
 * that arrive out of order) and a test both land on one answer.
 */
export const scheduler = fsrs({ request_retention: 0.9, enable_fuzz: false, enable_short_term: true });

export const RATINGS = ["again", "hard", "good", "easy"] as const;
export type RatingName = (typeof RATINGS)[number];
/** FSRS grades: 1 Again, 2 Hard, 3 Good, 4 Easy. */
export const gradeOf = (r: RatingName) => (RATINGS.indexOf(r) + 1) as Grade;
/** A stored grade's name (1 again … 4 easy). */
export const ratingName = (grade: number): RatingName => RATINGS[grade - 1]!;

/** The columns of a ReviewCard that hold its FSRS state. */
export type MemoryColumns = {
  due: Date;
  stability: number;
  difficulty: number;
  scheduledDays: number;
  learningSteps: number;
  reps: number;
  lapses: number;
  state: number;
  lastReview: Date | null;
};

export function toFsrsCard(c: MemoryColumns): Card {
  return {
    due: c.due,
    stability: c.stability,
    difficulty: c.difficulty,
    elapsed_days: 0,
    scheduled_days: c.scheduledDays,
    learning_steps: c.learningSteps,
    reps: c.reps,
    lapses: c.lapses,
    state: c.state,
    last_review: c.lastReview ?? undefined,
  };
}

export function fromFsrsCard(c: Card): MemoryColumns {
  return {
    due: c.due,
    stability: c.stability,
    difficulty: c.difficulty,
    scheduledDays: c.scheduled_days,
    learningSteps: c.learning_steps,
    reps: c.reps,
    lapses: c.lapses,
    state: c.state,
    lastReview: c.last_review ?? null,
  };
}

/** A new card, due at `at`. */
export const newMemory = (at: Date): MemoryColumns => fromFsrsCard(createEmptyCard(at));

/** One rating applied to a card's state at `at`: the state after it. */
export function rate(memory: MemoryColumns, rating: Grade, at: Date): MemoryColumns {
  return fromFsrsCard(scheduler.next(toFsrsCard(memory), at, rating).card);
}

/**
 * A card's state from its whole review log, oldest first, starting as a new card at `createdAt`
 * (or at the first review, if that is earlier). Each step's state after it comes back too, for
 * the log rows.
 */
export function replay<T extends { rating: Grade; reviewedAt: Date }>(createdAt: Date, reviews: T[]) {
  const sorted = [...reviews].sort((a, b) => a.reviewedAt.getTime() - b.reviewedAt.getTime());
  const start = sorted[0] && sorted[0].reviewedAt < createdAt ? sorted[0].reviewedAt : createdAt;
  let memory = newMemory(start);
  const steps = sorted.map((r) => {
    const before = memory.state;
    memory = rate(memory, r.rating, r.reviewedAt);
    return { ...r, before, after: memory };
  });
  return { memory, steps };
}

/** The probability of recalling the card at `at` (0 for a card never reviewed). */
export function retrievability(memory: MemoryColumns, at: Date): number {
  if (!memory.lastReview || memory.reps === 0) return 0;
  return scheduler.get_retrievability(toFsrsCard(memory), at, false);
}
