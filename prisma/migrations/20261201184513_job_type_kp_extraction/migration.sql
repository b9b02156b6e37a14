-- AlterEnum
ALTER TYPE "JobType" ADD VALUE 'knowledge_point_extraction';
