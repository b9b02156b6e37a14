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
});
