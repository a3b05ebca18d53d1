/**
 * The root scripts keep the node flags the speed decisions chose (docs/decisions/speed.md,
 * SPEED-25): memory is measured in bench/ only, so nothing else notices a flag dropped from
 * `pnpm start`.
 */
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "@effect/vitest"

const root = fileURLToPath(new URL("../../..", import.meta.url))

describe("the root scripts", () => {
  it("pnpm start runs node with --liftoff-only, --max-semi-space-size=8 and --heap-growing-percent=100", () => {
    const scripts = JSON.parse(readFileSync(join(root, "package.json"), "utf8")).scripts as Record<
      string,
      string
    >
    const node =
      /exec node ([^&;]*)scripts\/bundle\.mjs --if-changed --run server$/.exec(scripts.start ?? "")?.[1] ?? ""
    expect(node.trim().split(/\s+/).sort()).toEqual(
      ["--heap-growing-percent=100", "--liftoff-only", "--max-semi-space-size=8"].sort()
    )
  })
})
