/**
 * The docs a reader of a fresh clone opens point only at what the clone has: every relative link
 * of README.md, deploy/README.md and docs/ (the spec copy included) names a file or folder that
 * exists, and so does every repository path the README and docs/ write in backticks
 * (`packages/...`, `apps/...`, `docs/...`, ...); the README's layout table lists every package and
 * app; nothing points outside the repository (`../shared`, `DESIGN.md`). The README stays short
 * (300 lines, a quick start of 25 without measurements): the detail lives in docs/.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs"
import { dirname, join, relative, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "@effect/vitest"

const root = fileURLToPath(new URL("../../..", import.meta.url))

const markdownUnder = (dir: string): ReadonlyArray<string> =>
  readdirSync(join(root, dir)).flatMap((name) => {
    const path = join(dir, name)
    if (statSync(join(root, path)).isDirectory()) return markdownUnder(path)
    return name.endsWith(".md") ? [path] : []
  })

/** The pages a reader opens first: the README, the deployment guide and everything in docs/. */
const pages: ReadonlyArray<string> = ["README.md", "deploy/README.md", ...markdownUnder("docs")]

const linkPattern = /\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g

/** Relative link targets of a page, without their `#fragment` (links to other sites are left out). */
const relativeLinks = (text: string): ReadonlyArray<string> =>
  [...text.matchAll(linkPattern)]
    .map((match) => match[1] ?? "")
    .filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target) && !target.startsWith("#"))
    .map((target) => target.split("#")[0] ?? "")
    .filter((target) => target !== "")

const topLevel = [
  "packages/",
  "apps/",
  "docs/",
  "deploy/",
  "scripts/",
  "tools/",
  "bench/",
  ".ci/",
  ".changeset/"
]

/**
 * Files a reader makes, not in the repository: `deploy/.env` from `deploy/.env.example`,
 * `deploy/secrets/` by `deploy/make-secrets.sh`, the admin command's code cache by its first run
 * (absent from a fresh clone until then, whatever order the tests run in).
 */
const madeByTheReader: ReadonlySet<string> = new Set([
  "deploy/.env",
  "deploy/secrets/",
  "apps/server/dist/admin.cjs.cache"
])

/** Repository paths written in backticks (placeholders, globs and commands left out). */
const backtickedPaths = (text: string): ReadonlyArray<string> =>
  [...text.matchAll(/`([^`\s]+)`/g)]
    .map((match) => match[1] ?? "")
    .filter((path) => topLevel.some((prefix) => path.startsWith(prefix)))
    .filter((path) => !/[<>*{}$]/.test(path) && !madeByTheReader.has(path))

/** A figure of time, size, rate or share, or the words that come with measurements. */
const measurement =
  /\b\d+(?:[.,]\d+)?(?:-\d+(?:[.,]\d+)?)? ?(?:(?:ms|s|seconds?|minutes?|KB|MB|GB|KiB|MiB|GiB|req\/s)\b|%)|\bmedian\b|load average|\bp\d\d\b/i

describe("the docs point only at files of the repository", () => {
  it.each(pages)("%s: every relative link names a file that exists", (page) => {
    const text = readFileSync(join(root, page), "utf8")
    const broken = relativeLinks(text).filter((target) => !existsSync(resolve(root, dirname(page), target)))
    expect(broken).toEqual([])
  })

  it.each(pages.filter((page) => !page.startsWith("docs/spec/")))(
    "%s: every backticked repository path exists, and nothing points outside the repository",
    (page) => {
      const text = readFileSync(join(root, page), "utf8")
      const missing = backtickedPaths(text).filter((path) => !existsSync(join(root, path)))
      expect(missing).toEqual([])
      expect(text).not.toMatch(/\.\.\/shared\/|`DESIGN\.md`/)
    }
  )

  it("the README is read in minutes: at most 300 lines, a quick start of at most 25 and no measurements in it", () => {
    const readme = readFileSync(join(root, "README.md"), "utf8")
    expect(readme.split("\n").length).toBeLessThanOrEqual(300)
    const quickStart = readme.split("\n## Quick start")[1]?.split("\n## ")[0] ?? ""
    expect(quickStart).not.toBe("")
    expect(quickStart.trim().split("\n").length + 1).toBeLessThanOrEqual(25)
    expect(quickStart).not.toMatch(measurement)
  })

  it("the README's layout table lists every package and app", () => {
    const readme = readFileSync(join(root, "README.md"), "utf8")
    const layout = readme.split("\n## Layout")[1]?.split("\n## ")[0] ?? ""
    const workspaces = ["packages", "apps"].flatMap((dir) =>
      readdirSync(join(root, dir))
        .filter((name) => existsSync(join(root, dir, name, "package.json")))
        .map((name) => relative(root, join(root, dir, name)))
    )
    expect(workspaces.length).toBeGreaterThan(10)
    expect(workspaces.filter((path) => !layout.includes(`\`${path}\``))).toEqual([])
  })
})

describe("finding measurements", () => {
  it("finds times, sizes, rates and shares, and leaves versions, ports and counts alone", () => {
    for (const text of [
      "took 1.11-1.17 s",
      "answered after 1.57 s",
      "60 ms",
      "233 MB idle",
      "88%",
      "median 1567",
      "at load average 1.0"
    ]) {
      expect(text).toMatch(measurement)
    }
    for (const text of [
      "Node.js 20.18 or newer",
      "pnpm@10",
      "http://127.0.0.1:3000/api/v2",
      "1,000 credits",
      "pro plan"
    ]) {
      expect(text).not.toMatch(measurement)
    }
  })
})
