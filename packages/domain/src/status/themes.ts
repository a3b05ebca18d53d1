/** Themes status. `refunded` is internal: the API reports a refunded detection as locked again. */
import { Schema } from "effect"

export const ThemesStatus = Schema.Literal("locked", "processing", "completed", "refunded").annotations({
  identifier: "ThemesStatus"
})
export type ThemesStatus = typeof ThemesStatus.Type
