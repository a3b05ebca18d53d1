/**
 * The root scripts keep the node flags the speed decisions chose (docs/decisions/speed.md,
 * SPEED-25): memory is measured in bench/ only, so nothing else notices a flag dropped from
 * `pnpm start`. The install scripts that `pnpm start` and `pnpm worker` run first ask dpkg once
 * for all their packages.
 */
import { execFileSync } from "node:child_process"
import { existsSync, readFileSync } from "node:fs"
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

describe.runIf(existsSync("/usr/bin/dpkg-query"))("the install scripts' package check", () => {
  /** What `missing_packages` (scripts/lib/missing-packages.sh) leaves in `missing`, one per line. */
  const missing = (packages: ReadonlyArray<string>): ReadonlyArray<string> =>
    execFileSync(
      "bash",
      [
        "-c",
        // biome-ignore lint/suspicious/noTemplateCurlyInString: a bash script, not a template
        'source scripts/lib/missing-packages.sh && missing_packages "$@" && printf "%s\\n" "${missing[@]}"',
        "-",
        ...packages
      ],
      { cwd: root, encoding: "utf8" }
    )
      .split("\n")
      .filter((line) => line !== "")

  it("names exactly the packages dpkg has not installed, in the order asked", () => {
    // dpkg's own packages are installed wherever dpkg-query is; the others exist nowhere.
    expect(missing(["dpkg", "verbatim-no-such-package", "bash", "verbatim-nor-this"])).toEqual([
      "verbatim-no-such-package",
      "verbatim-nor-this"
    ])
    expect(missing(["dpkg", "bash"])).toEqual([])
    // A name that is only a prefix of an installed package's is not that package.
    expect(missing(["dpk"])).toEqual(["dpk"])
  })
})
