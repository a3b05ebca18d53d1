/** Each tool's hints say what it does: a tool that only reads is read-only, so clients do not ask to confirm it. */
import { describe, expect, it } from "@effect/vitest"
import { tools } from "../src/tools/index.js"

const hintsOf = (name: string) => tools.find((tool) => tool.name === name)?.listing.annotations

describe("tool annotations", () => {
  it("resolve_playlist and resolve_channel are read-only: they list videos and charge nothing", () => {
    for (const name of ["resolve_playlist", "resolve_channel"]) {
      expect(hintsOf(name)).toMatchObject({ readOnlyHint: true })
    }
  })
})
