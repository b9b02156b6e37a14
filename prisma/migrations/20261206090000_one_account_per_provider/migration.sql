-- One sign-in method of each kind per user: of two single sign-on identities racing to join the
-- same learner, the second insert fails on this index and its sign-in is refused
-- (docs/security.md, "Single sign-on: who an identity may become").

-- DropIndex
DROP INDEX "Account_userId_idx";

-- CreateIndex
CREATE UNIQUE INDEX "Account_userId_providerId_key" ON "Account"("userId", "providerId");
