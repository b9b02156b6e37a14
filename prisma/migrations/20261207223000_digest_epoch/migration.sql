-- An unsubscribe link signs the opt-in it was sent under: a later opt-in retires it.
ALTER TABLE "User" ADD COLUMN "digestEpoch" INTEGER NOT NULL DEFAULT 0;
