import { z } from "zod";
import {
  addKnowledgePoint,
  createMaterial,
  deleteKnowledgePoint,
  deleteMaterial,
  getMaterial,
  listMaterials,
  renameKnowledgePoint,
  updateMaterial,
} from "../../learning/materials";
import { acceptProposals, latestExtraction, listProposals } from "../../learning/kp-proposals";
import { jobStatusSchema } from "../schemas";
import { userProcedure, router } from "../init";
import { isoDate } from "../schemas";

const id = z.string().min(1).max(64);
const title = z.string().max(1000);
/** Checked in bytes by the domain (413 over 200 KB); this only keeps absurd strings out of the parser. */
const text = z.string().max(1_000_000);
const description = z.string().max(5000).optional();
const kpSchema = z.object({ id: z.string(), title: z.string(), description: z.string(), createdAt: isoDate });
const materialBase = z.object({
  id: z.string(),
  title: z.string(),
  createdAt: isoDate,
  knowledgePoints: z.array(kpSchema),
});
const fullMaterial = materialBase.extend({ text: z.string() });

/** "My materials": the signed-in learner's own materials and knowledge points, nobody else's. */
export const materialsRouter = router({
  list: userProcedure
    .input(z.void())
    .output(z.object({ items: z.array(materialBase.extend({ preview: z.string(), textBytes: z.number().int() })) }))
    .query(({ ctx }) => listMaterials(ctx.user.id)),

  get: userProcedure
    .input(z.object({ materialId: id }))
    .output(fullMaterial)
    .query(({ ctx, input }) => getMaterial(ctx.user.id, input.materialId)),

  create: userProcedure
    .input(
      z.object({
        title,
        text,
        knowledgePoints: z.array(z.object({ title, description })).max(100).optional(),
      }),
    )
    .output(fullMaterial)
    .mutation(({ ctx, input }) => createMaterial(ctx.user.id, input)),

  update: userProcedure
    .input(z.object({ materialId: id, title: title.optional(), text: text.optional() }))
    .output(fullMaterial)
    .mutation(({ ctx, input }) => updateMaterial(ctx.user.id, input.materialId, input)),

  delete: userProcedure
    .input(z.object({ materialId: id }))
    .output(z.object({ id: z.string(), deletedKnowledgePoints: z.number().int() }))
    .mutation(({ ctx, input }) => deleteMaterial(ctx.user.id, input.materialId)),

  addKnowledgePoint: userProcedure
    .input(z.object({ materialId: id, title, description }))
    .output(kpSchema)
    .mutation(({ ctx, input }) => addKnowledgePoint(ctx.user.id, input.materialId, input)),

  renameKnowledgePoint: userProcedure
    .input(z.object({ knowledgePointId: id, title, description }))
    .output(kpSchema)
    .mutation(({ ctx, input }) => renameKnowledgePoint(ctx.user.id, input.knowledgePointId, input)),

  deleteKnowledgePoint: userProcedure
    .input(z.object({ knowledgePointId: id }))
    .output(z.object({ id: z.string() }))
    .mutation(({ ctx, input }) => deleteKnowledgePoint(ctx.user.id, input.knowledgePointId)),

  /** The latest "Suggest knowledge points" job on one of the learner's materials (null: none yet). */
  latestSuggestion: userProcedure
    .input(z.object({ materialId: id }))
    .output(
      z
        .object({
          id: z.string(),
          status: jobStatusSchema,
          stage: z.string().nullable(),
          progress: z.number().int(),
          cancelRequested: z.boolean(),
          errorCode: z.string().nullable(),
          errorMessage: z.string().nullable(),
        })
        .nullable(),
    )
    .query(({ ctx, input }) => latestExtraction(ctx.user.id, input.materialId)),

  /** A finished knowledge_point_extraction job's proposals, each marked when the material already has it. */
  proposals: userProcedure
    .input(z.object({ jobId: id }))
    .output(
      z.object({
        jobId: z.string(),
        materialId: z.string(),
        materialExists: z.boolean(),
        proposals: z.array(
          z.object({
            index: z.number().int(),
            title: z.string(),
            summary: z.string(),
            keyTerms: z.array(z.string()),
            passage: z.string(),
            present: z.boolean(),
          }),
        ),
      }),
    )
    .query(({ ctx, input }) => listProposals(ctx.user.id, input.jobId)),

  /** Accepts some proposals as the material's knowledge points; ones it already has are not added again. */
  acceptProposals: userProcedure
    .input(z.object({ jobId: id, indexes: z.array(z.number().int().min(0).max(19)).min(1).max(20) }))
    .output(z.object({ materialId: z.string(), added: z.array(kpSchema), alreadyPresent: z.number().int() }))
    .mutation(({ ctx, input }) => acceptProposals(ctx.user.id, input.jobId, input.indexes)),
});
