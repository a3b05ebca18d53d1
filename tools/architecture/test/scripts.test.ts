/**
 * The root scripts keep the node flags the speed decisions chose (docs/decisions/speed.md,
 * SPEED-25): memory is measured in bench/ only, so nothing else notices a flag dropped from
 * `pnpm start`. The install scripts that `pnpm start` and `pnpm worker` run first ask dpkg once
 * for all their packages, and with `--require` (the image, CI) fail their caller when apt-get does.
 */
import { execFileSync, spawnSync } from "node:child_process"
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
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

describe("the install scripts when apt-get fails", () => {
  /**
   * Runs an install script with `apt-get` and `dpkg-query` replaced by fakes on PATH: dpkg knows no
   * package (so every one is missing), apt-get exits with `aptStatus` and installs nothing.
   */
  const runWithFakeApt = (script: string, aptStatus: number, args: ReadonlyArray<string>) => {
    const bin = mkdtempSync(join(tmpdir(), "verbatim-fake-apt-"))
    try {
      writeFileSync(join(bin, "apt-get"), `#!/bin/sh\necho "fake apt-get $*"\nexit ${aptStatus}\n`)
      writeFileSync(join(bin, "dpkg-query"), "#!/bin/sh\nexit 1\n")
      writeFileSync(join(bin, "sudo"), '#!/bin/sh\n[ "$1" = -n ] && shift\nexec "$@"\n')
      for (const name of ["apt-get", "dpkg-query", "sudo"]) chmodSync(join(bin, name), 0o755)
      const result = spawnSync("bash", [join(root, "scripts", script), ...args], {
        cwd: root,
        encoding: "utf8",
        env: { PATH: `${bin}:${process.env.PATH ?? "/usr/bin:/bin"}` }
      })
      return { status: result.status, stderr: result.stderr }
    } finally {
      rmSync(bin, { recursive: true, force: true })
    }
  }

  it.each(["install-speech.sh", "install-translation.sh"])(
    "%s: without --require it advises and exits 0; with it, a failing or ineffective apt-get fails the caller",
    (script) => {
      const lenient = runWithFakeApt(script, 100, [])
      expect(lenient.status).toBe(0)
      expect(lenient.stderr).toContain("apt-get update failed.")
      expect(lenient.stderr).toContain("until then")

      const required = runWithFakeApt(script, 100, ["--require"])
      expect(required.status).toBe(1)
      expect(required.stderr).toContain("apt-get update failed.")
      expect(required.stderr).toContain("required (--require): failing")

      // apt-get says it succeeded, but dpkg still has none of the packages.
      const ineffective = runWithFakeApt(script, 0, ["--require"])
      expect(ineffective.status).toBe(1)
      expect(ineffective.stderr).toContain("dpkg does not have every package installed")

      expect(runWithFakeApt(script, 0, ["--bogus"]).status).toBe(2)
    }
  )
})
