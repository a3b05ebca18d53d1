/**
 * The decision log (`docs/decisions/`) stays true to the tests: every decision has a numbered
 * heading, a paragraph and at least one `Pinned by:` line, and every pinning line names a test file
 * that exists and a test (or `describe` block) in it whose name is written there literally, as the
 * first argument of `it(`, `test(`, `describe(` or one of their forms (`it.effect(`, `it.prop(`,
 * `it.each(...)(`, ...). Renaming or deleting a pinning test fails here until the decision is
 * pointed at the test that now pins it. A name built at run time (a template literal with `${}`)
 * cannot pin a decision: the log must name what a reader can find with a search.
 *
 * Pending files (`pending-<helper>.md`, headings `### ?. <title>`) are checked the same way but
 * for their numbers, which the lead gives them when folding them into an area's file.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "@effect/vitest"
import { type Reach, type TestSite, testSitesOf } from "./test-sites.js"

const root = fileURLToPath(new URL("../../..", import.meta.url))
const folder = "docs/decisions"

/** One `Pinned by:` line: a backticked repository path, `›`, then the test's name in double quotes. */
const pinPattern = /^Pinned by: `([^`]+)` › "(.+)"$/

interface Decision {
  readonly file: string
  readonly heading: string
  readonly id: string
  readonly paragraph: ReadonlyArray<string>
  readonly pins: ReadonlyArray<string>
}

/** The decisions of one file: each `### ` heading with the lines up to the next heading. */
const decisionsOf = (file: string, text: string): ReadonlyArray<Decision> => {
  const decisions: Array<Decision> = []
  let current: { heading: string; lines: Array<string> } | undefined
  const close = () => {
    if (current === undefined) return
    const lines = current.lines.map((line) => line.trim()).filter((line) => line !== "")
    decisions.push({
      file,
      heading: current.heading,
      id: /^### (\S+?)\. /.exec(current.heading)?.[1] ?? "",
      paragraph: lines.filter((line) => !line.startsWith("Pinned by")),
      pins: lines.filter((line) => line.startsWith("Pinned by"))
    })
  }
  for (const line of text.split("\n")) {
    if (line.startsWith("## ") || line.startsWith("# ")) {
      close()
      current = undefined
    } else if (line.startsWith("### ")) {
      close()
      current = { heading: line, lines: [] }
    } else if (current !== undefined) current.lines.push(line)
  }
  close()
  return decisions
}

/** Text as a reader compares it: lower case, words only. */
const words = (text: string): string =>
  text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, " ")
    .trim()

/** Whether a paragraph opens by saying its heading's title again. */
const opensWith = (paragraph: string, title: string): boolean => {
  const said = words(title)
  return said !== "" && `${words(paragraph)} `.startsWith(`${said} `)
}

/** The literal names a test file gives its tests and blocks (see `test-sites.ts` for the forms). */
const testNamesOf = (source: string): ReadonlySet<string> =>
  new Set(testSitesOf("source.test.ts", source).map((site) => site.name))

const decisionFiles = readdirSync(join(root, folder))
  .filter((name) => name.endsWith(".md") && name !== "README.md")
  .sort()
const areaFiles = decisionFiles.filter((name) => !name.startsWith("pending-"))

const decisions = decisionFiles.flatMap((name) =>
  decisionsOf(`${folder}/${name}`, readFileSync(join(root, folder, name), "utf8"))
)

const sitesCache = new Map<string, ReadonlyArray<TestSite>>()
const sitesIn = (path: string): ReadonlyArray<TestSite> => {
  const known = sitesCache.get(path)
  if (known !== undefined) return known
  const sites = testSitesOf(join(root, path))
  sitesCache.set(path, sites)
  return sites
}
const namesIn = (path: string): ReadonlySet<string> => new Set(sitesIn(path).map((site) => site.name))

const reachRank: Record<Reach, number> = { environment: 0, ci: 1, always: 2 }

/** The best reach among a pin's test sites, and why the best can be skipped. */
const pinReach = (path: string, name: string): { readonly reach: Reach; readonly why: string } =>
  sitesIn(path)
    .filter((site) => site.name === name)
    .reduce<{ readonly reach: Reach; readonly why: string } | undefined>(
      (best, site) => (best === undefined || reachRank[site.reach] > reachRank[best.reach] ? site : best),
      undefined
    ) ?? { reach: "environment", why: "no such test" }

describe("the decision log", () => {
  it("has an area file for each part of the service, each listed in the README", () => {
    const readme = readFileSync(join(root, folder, "README.md"), "utf8")
    expect(areaFiles.length).toBeGreaterThan(10)
    expect(areaFiles.filter((name) => !readme.includes(`](${name})`))).toEqual([])
    expect(existsSync(join(root, "docs/decisions.md"))).toBe(false)
  })

  it("numbers each decision of an area file with the area's prefix, once in the whole log", () => {
    const wrong = areaFiles.flatMap((name) => {
      const own = decisions.filter((decision) => decision.file === `${folder}/${name}`)
      const prefix = /^([A-Z]+)-/.exec(own[0]?.id ?? "")?.[1]
      return own
        .filter(
          (decision) =>
            prefix === undefined || !new RegExp(`^### ${prefix}-[1-9]\\d*\\. \\S`).test(decision.heading)
        )
        .map((decision) => `${decision.file}: ${decision.heading}`)
    })
    expect(wrong).toEqual([])
    const ids = decisions.filter((decision) => decision.id !== "?").map((decision) => decision.id)
    expect(ids.filter((id, index) => ids.indexOf(id) !== index)).toEqual([])
  })

  it("numbers the decisions of each area file in ascending order", () => {
    const unordered = areaFiles.flatMap((name) => {
      const numbers = decisions
        .filter((decision) => decision.file === `${folder}/${name}`)
        .map((decision) => Number(/-(\d+)$/.exec(decision.id)?.[1]))
      return numbers.some((number, index) => index > 0 && number <= (numbers[index - 1] ?? 0))
        ? [`${name}: ${numbers.join(", ")}`]
        : []
    })
    expect(unordered).toEqual([])
  })

  it("gives every decision a whole heading that its paragraph does not repeat", () => {
    const wrong = decisions.flatMap((decision) => {
      const title = decision.heading.replace(/^### \S+\. /, "")
      const cut =
        (title.match(/\(/g) ?? []).length !== (title.match(/\)/g) ?? []).length ||
        (title.match(/`/g) ?? []).length % 2 === 1 ||
        /[(,:;]$/.test(title)
      return [
        ...(cut ? [`${decision.heading}: cut off`] : []),
        ...(opensWith(decision.paragraph.join(" "), title) ? [`${decision.heading}: repeated`] : [])
      ]
    })
    expect(wrong).toEqual([])
  })

  it("stays short enough to read: at most 100 KB in all", () => {
    const bytes = readdirSync(join(root, folder))
      .filter((name) => name.endsWith(".md"))
      .reduce((sum, name) => sum + statSync(join(root, folder, name)).size, 0)
    expect(bytes).toBeLessThanOrEqual(100 * 1024)
  })

  it("gives pending decisions the heading `### ?. <title>`", () => {
    const wrong = decisions
      .filter((decision) => decision.file.includes("/pending-") && !/^### \?\. \S/.test(decision.heading))
      .map((decision) => `${decision.file}: ${decision.heading}`)
    expect(wrong).toEqual([])
  })

  it("gives every decision a paragraph and at least one pinning line in the exact format", () => {
    const wrong = decisions.flatMap((decision) => [
      ...(decision.paragraph.length === 0 ? [`${decision.heading}: no paragraph`] : []),
      ...(decision.pins.length === 0 ? [`${decision.heading}: not pinned`] : []),
      ...decision.pins.filter((pin) => !pinPattern.test(pin)).map((pin) => `${decision.heading}: ${pin}`)
    ])
    expect(wrong).toEqual([])
  })

  it("pins every decision to a test file that exists and a test that file names literally", () => {
    const broken = decisions.flatMap((decision) =>
      decision.pins.flatMap((pin) => {
        const [, path = "", name = ""] = pinPattern.exec(pin) ?? []
        if (!path.endsWith(".ts") || !existsSync(join(root, path))) return [`${decision.id}: no file ${path}`]
        return namesIn(path).has(name) ? [] : [`${decision.id}: ${path} has no test "${name}"`]
      })
    )
    expect(broken).toEqual([])
  }, 60_000)

  it("pins every decision to at least one test that cannot be skipped on the machine (or fails under CI=true)", () => {
    const skippable = decisions.flatMap((decision) => {
      const pins = decision.pins.flatMap((pin) => {
        const [, path = "", name = ""] = pinPattern.exec(pin) ?? []
        return existsSync(join(root, path)) ? [{ path, name, ...pinReach(path, name) }] : []
      })
      return pins.length > 0 && pins.every((pin) => pin.reach === "environment")
        ? [`${decision.id}: ${pins.map((pin) => `${pin.path} › "${pin.name}" (${pin.why})`).join("; ")}`]
        : []
    })
    expect(skippable).toEqual([])
  })
})

/** The reach of each named site of a test file's source, by name. */
const reaches = (source: string, path = "source.test.ts"): Record<string, string> =>
  Object.fromEntries(testSitesOf(path, source).map((site) => [site.name, site.reach]))

describe("reading test names", () => {
  it("finds literal names of every form and leaves out names built at run time", () => {
    const source = [
      `it("plain", () => {})`,
      `it.effect('single "quoted"', () => Effect.void)`,
      "it.prop(`template`, [], () => true)",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the source of a test built at run time
      "it(`built ${name}`, () => {})",
      `it.each([["a", 1], ["b", (2)]])("each %s", () => {})`,
      `describe.skipIf(process.env.CI === "true")("skipped block", () => {})`,
      `describe("block", () => { test(\n  "a long name on its own line",\n  () => {}) })`,
      `expect(fn("not a test")).toBe(1)`,
      `split("not a test either")`
    ].join("\n")
    expect([...testNamesOf(source)].sort()).toEqual(
      [
        "plain",
        'single "quoted"',
        "template",
        "each %s",
        "skipped block",
        "block",
        "a long name on its own line"
      ].sort()
    )
  })

  it("fails a pin whose test was renamed", () => {
    const before = testNamesOf(`it.effect("answers 413 for a body over 1 MiB", () => Effect.void)`)
    const after = testNamesOf(`it.effect("answers 413 for a body over one MiB", () => Effect.void)`)
    expect(before.has("answers 413 for a body over 1 MiB")).toBe(true)
    expect(after.has("answers 413 for a body over 1 MiB")).toBe(false)
  })

  it("reads decisions, their paragraphs and pins, and the pin format", () => {
    const text = [
      "# Area",
      "",
      "### HTTP-1. A title",
      "",
      "The decision and why.",
      "",
      'Pinned by: `apps/server/test/x.test.ts` › "a test"',
      "",
      "## A section",
      "",
      "### ?. Pending",
      "",
      "Pinned by: apps/server/test/x.test.ts a test"
    ].join("\n")
    const [first, second] = decisionsOf("x.md", text)
    expect(first).toMatchObject({ id: "HTTP-1", paragraph: ["The decision and why."] })
    expect(first?.pins.map((pin) => pinPattern.exec(pin)?.slice(1))).toEqual([
      ["apps/server/test/x.test.ts", "a test"]
    ])
    expect(second).toMatchObject({ id: "?", paragraph: [] })
    expect(second?.pins.every((pin) => pinPattern.test(pin))).toBe(false)
  })
})

describe("reading headings", () => {
  it("finds a paragraph that opens with its heading's title, whatever its punctuation", () => {
    expect(
      opensWith(
        "`format` defaults to timestamp true, paragraphs false.",
        "`format` defaults to timestamp true"
      )
    ).toBe(true)
    expect(
      opensWith(
        "Page is at most 10,000,000 (the spec names none).",
        "`page` is at most 10,000,000 (the spec names no maximum"
      )
    ).toBe(false)
    expect(opensWith("The rule and why.", "A short title")).toBe(false)
    expect(opensWith("Exports everything", "Exports")).toBe(true)
    expect(opensWith("Exported files", "Exports")).toBe(false)
  })
})

describe("reading whether a test can be skipped on the machine", () => {
  it("reads .skip, .todo, .skipIf and .runIf on a test and on the blocks around it", () => {
    const source = [
      `it("plain", () => {})`,
      `it.skip("skipped", () => {})`,
      `it.todo("to do")`,
      `it.effect.skipIf(!process.env.REDIS_URL)("on Redis", () => Effect.void)`,
      `it.runIf(databaseUrl !== "")("on PostgreSQL", () => {})`,
      `describe.skipIf(url === undefined)("a Redis block", () => { it("inside it", () => {}) })`,
      `describe("a block", () => { it.runIf(process.platform === "linux")("on Linux", () => {}); it("any", () => {}) })`,
      `describe.runIf(installed)("installed", () => { it("inner", () => {}) })`,
      `describe("returns early", () => { it("before", () => {}); if (redis === undefined) return; it("after", () => {}) })`,
      `describe("returns in a block", () => { if (!url) { warn(); return } it("after a block", () => {}) })`
    ].join("\n")
    expect(reaches(source)).toEqual({
      plain: "always",
      skipped: "environment",
      "to do": "environment",
      "on Redis": "environment",
      "on PostgreSQL": "environment",
      "a Redis block": "environment",
      "inside it": "environment",
      "a block": "always",
      "on Linux": "environment",
      any: "always",
      installed: "environment",
      inner: "environment",
      "returns early": "always",
      before: "always",
      after: "environment",
      "returns in a block": "environment",
      "after a block": "environment"
    })
  })

  it("takes a test that runs (and fails) under CI=true for one that cannot be skipped there", () => {
    const source = [
      `const inCi = process.env.CI === "true"`,
      `const hasChromium = existsSync("/usr/bin/chromium")`,
      `it.skipIf(!hasChromium && !inCi)("a browser", () => {})`,
      `describe.runIf(installed || process.env.CI === "true")("the engine", () => { it("hears", () => {}) })`,
      `it.skipIf(!hasChromium || !inCi)("only in CI", () => {})`,
      `describe.skipIf(process.env.CI === "true")("never in CI", () => { it("left out", () => {}) })`,
      `const ci = process.env.CI !== undefined && process.env.CI !== "" && process.env.CI !== "false"`,
      `describe.runIf(url !== "" || ci)("set in CI", () => { it("runs in CI", () => {}) })`
    ].join("\n")
    expect(reaches(source)).toEqual({
      "a browser": "ci",
      "the engine": "ci",
      hears: "ci",
      "only in CI": "environment",
      "never in CI": "environment",
      "left out": "environment",
      "set in CI": "ci",
      "runs in CI": "ci"
    })
  })

  it("reads layer blocks registered on a condition: if, else, ?:, && and Option.match", () => {
    const source = [
      `layer(Live)("embedded", (it) => { it.effect("always here", () => Effect.void) })`,
      `if (process.env.REDIS_URL) { layer(Redis)("on Redis", (it) => { it.effect("when set", () => Effect.void) }) }`,
      `else { layer(Memory)("in memory", (it) => { it.effect("else", () => Effect.void) }) }`,
      `const suites = databaseUrl ? [layer(Pg)("on PostgreSQL", (it) => { it.effect("ternary", () => Effect.void) })] : []`,
      `caddy !== undefined && layer(Caddy)("behind Caddy", (it) => { it.effect("and", () => Effect.void) })`,
      `Option.match(redisUrl, { onNone: () => {}, onSome: (url) => layer(url)("matched", (it) => { it.effect("branch", () => Effect.void) }) })`
    ].join("\n")
    expect(reaches(source)).toMatchObject({
      embedded: "always",
      "always here": "always",
      "on Redis": "environment",
      "when set": "environment",
      "in memory": "environment",
      else: "environment",
      "on PostgreSQL": "environment",
      ternary: "environment",
      "behind Caddy": "environment",
      and: "environment",
      matched: "environment",
      branch: "environment"
    })
  })

  it("reads ctx.skip() in a test's own body, and a skip that CI=true rules out", () => {
    const source = [
      `const inCi = process.env.CI === "true"`,
      `it("skips itself", (ctx) => { if (!existsSync("/usr/bin/caddy")) ctx.skip(); expect(1).toBe(1) })`,
      `it("skips by destructuring", ({ skip }) => { skip() })`,
      `it("skips outside CI only", (context) => { if (!installed && !inCi) context.skip() })`,
      `it("never skips", (ctx) => { expect(ctx.task.name).toBe("never skips") })`
    ].join("\n")
    expect(reaches(source)).toEqual({
      "skips itself": "environment",
      "skips by destructuring": "environment",
      "skips outside CI only": "ci",
      "never skips": "always"
    })
  })

  it("follows helpers and local functions that register tests: a helper that calls its tests on a condition", () => {
    const folder = mkdtempSync(join(tmpdir(), "verbatim-sites-"))
    try {
      writeFileSync(
        join(folder, "support.ts"),
        [
          `export const inCi = process.env.CI === "true"`,
          `export const whenInstalled = (body: () => void): void => {`,
          `  if (detection._tag === "Installed") body()`,
          `  else it.skip(\`skipped: \${detection.reason}\`, () => {})`,
          `}`,
          `export const eachDatabase = (name: string, suite: (it: unknown) => void) => {`,
          `  for (const database of databases) layer(database.layer)(\`\${name} [\${database.name}]\`, (it) => suite(it))`,
          `}`,
          `export const handedOn = (body: () => void) => whenInstalled(body)`
        ].join("\n")
      )
      const source = [
        `import { eachDatabase, handedOn, inCi, whenInstalled } from "./support.js"`,
        `whenInstalled(() => { it("needs the engine", () => {}) })`,
        `handedOn(() => { it("handed on", () => {}) })`,
        `eachDatabase("repository", (it) => { it.effect("on every database", () => Effect.void) })`,
        `it.skipIf(!installed && !inCi)("imported constant", () => {})`,
        `const suite = (name: string) => { layer(Live)(name, (it) => { it.effect("in a suite", () => Effect.void) }) }`,
        `suite("memory")`,
        `if (process.env.REDIS_URL) suite("redis")`,
        `const onlyRedis = () => { it("only on Redis", () => {}) }`,
        `if (process.env.REDIS_URL) onlyRedis()`
      ].join("\n")
      expect(reaches(source, join(folder, "x.test.ts"))).toEqual({
        "needs the engine": "environment",
        "handed on": "environment",
        "on every database": "always",
        "imported constant": "ci",
        "in a suite": "always",
        "only on Redis": "environment"
      })
    } finally {
      rmSync(folder, { recursive: true, force: true })
    }
  })
})
