/**
 * What "due" means, everywhere: a card is due once its due time has come (due ≤ the moment asked
 * about). The Review view's queue, the review evidence a snapshot carries (so the analyses' due
 * counts) and the quality rules that check a plan's due counts all use these two functions. No
 * imports: the domain (server/jobs, server/job-types) and the browser may load it.
 */
export const isDue = (due: Date | string, at: Date): boolean => new Date(due).getTime() <= at.getTime();

/** The same definition as a Prisma filter on a card's `due` column. */
export const dueBy = (at: Date) => ({ lte: at });
