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
import { existsSync, readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "@effect/vitest"

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

const unescaped = (body: string): string =>
  body.replace(/\\(u\{[0-9a-fA-F]+\}|u[0-9a-fA-F]{4}|x[0-9a-fA-F]{2}|.)/g, (_, code: string) => {
    if (code.startsWith("u{")) return String.fromCodePoint(Number.parseInt(code.slice(2, -1), 16))
    if (code.length > 1) return String.fromCharCode(Number.parseInt(code.slice(1), 16))
    return ({ n: "\n", t: "\t", r: "\r" } as Record<string, string>)[code] ?? code
  })

/** The string literal starting at `at` (a quote), or undefined when it is not literal (`${}`). */
const literalAt = (source: string, at: number): string | undefined => {
  const quote = source[at]
  if (quote !== '"' && quote !== "'" && quote !== "`") return undefined
  let end = at + 1
  while (end < source.length && source[end] !== quote) end += source[end] === "\\" ? 2 : 1
  const body = source.slice(at + 1, end)
  if (quote === "`" && body.includes("${")) return undefined
  return unescaped(body)
}

/** The index of the `(` that opens the group whose `)` is at `close` (strings inside skipped). */
const openingOf = (source: string, close: number): number => {
  let depth = 0
  for (let at = close; at >= 0; at--) {
    const char = source[at]
    if (char === '"' || char === "'" || char === "`") {
      at--
      while (at >= 0 && (source[at] !== char || source[at - 1] === "\\")) at--
    } else if (char === ")" || char === "]" || char === "}") depth++
    else if (char === "(" || char === "[" || char === "{") {
      depth--
      if (depth === 0) return at
    }
  }
  return -1
}

const testCallee = /(?:^|[^\w.$])(?:it|test|describe|layer)(?:\.\w+)*\s*$/

/**
 * The literal names a test file gives its tests and blocks: every string literal that is the first
 * argument of `it(`, `test(`, `describe(` (with modifiers such as `.effect`, `.prop`, `.live`,
 * `.skipIf(...)`) or of the call that `it.each(table)` / `describe.each(table)` returns.
 */
const testNamesOf = (source: string): ReadonlySet<string> => {
  const names = new Set<string>()
  for (const match of source.matchAll(/\(\s*(?=["'`])/g)) {
    const paren = match.index
    let before = source.slice(Math.max(0, paren - 200), paren)
    if (/\)\s*$/.test(before)) {
      // `it.each(table)(` or `it.skipIf(cond)(`: look before the group that the call follows.
      const close = paren - 1 - (before.length - before.trimEnd().length)
      const open = openingOf(source, close)
      if (open < 0) continue
      before = source.slice(Math.max(0, open - 200), open)
      if (!/\.\w+\s*$/.test(before)) continue
    }
    if (!testCallee.test(before)) continue
    const name = literalAt(source, paren + match[0].length)
    if (name !== undefined) names.add(name)
  }
  return names
}

const decisionFiles = readdirSync(join(root, folder))
  .filter((name) => name.endsWith(".md") && name !== "README.md")
  .sort()
const areaFiles = decisionFiles.filter((name) => !name.startsWith("pending-"))

const decisions = decisionFiles.flatMap((name) =>
  decisionsOf(`${folder}/${name}`, readFileSync(join(root, folder, name), "utf8"))
)

const namesCache = new Map<string, ReadonlySet<string>>()
const namesIn = (path: string): ReadonlySet<string> => {
  const known = namesCache.get(path)
  if (known !== undefined) return known
  const names = testNamesOf(readFileSync(join(root, path), "utf8"))
  namesCache.set(path, names)
  return names
}

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
  })
})

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
