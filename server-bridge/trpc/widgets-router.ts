/**
 * The owner's widget procedures (DESIGN.md section 8a), the same as the `widget` CLI: register a widget
 * (its mint key is in that one answer), list the owner's widgets, revoke one. The admin token or the
 * signed-in person's page only: an API token, an MCP token or a widget can never register a widget.
 */
import { z } from "zod";
import { MODES } from "../../shared/capabilities/types.ts";
import { admin, router } from "./init.ts";

const Limit = z.number().int().min(1).max(100_000);

export const widgetsRouter = router({
  add: admin
    .input(
      z.object({
        origins: z.array(z.string().min(1).max(300)).min(1).max(20),
        modules: z.array(z.string().min(1).max(100)).max(100).optional(),
        maxMode: z.enum(MODES).optional(),
        maxActions: Limit.optional(),
        callsPerMinute: Limit.optional(),
        /** Act as the owner (default: a user made for the widget alone). */
        actAsOwner: z.boolean().optional(),
      }),
    )
    .mutation(async ({ ctx, input }) => {
      const { widget, mintKey } = await ctx.app.widgets.add(ctx.userId, input);
      return { widget, mintKey };
    }),
  list: admin.query(async ({ ctx }) => ({ widgets: await ctx.app.widgets.list(ctx.userId) })),
  revoke: admin.input(z.object({ widgetId: z.string().min(1).max(200) })).mutation(async ({ ctx, input }) => ({
    revoked: await ctx.app.widgets.revoke(ctx.userId, input.widgetId),
  })),
});
