/**
 * The widget's public policy, written into its page by the server (server-bridge/http/embed.ts): its
 * id, the origins that may frame it (and so talk to it), its modules and highest mode. Parsed before
 * use like everything else; nothing in it is secret.
 */
import { z } from "zod";
import { MODES } from "../../../shared/capabilities/types.ts";

export const WidgetConfig = z.object({
  id: z.string().min(1).max(100),
  origins: z.array(z.string()).min(1),
  modules: z.array(z.string()),
  maxMode: z.enum(MODES),
});
export type WidgetConfig = z.infer<typeof WidgetConfig>;

export function readWidgetConfig(doc: Document): WidgetConfig | undefined {
  const text = doc.getElementById("nt-widget")?.textContent ?? "";
  try {
    const parsed = WidgetConfig.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
