/**
 * `pnpm --filter @verbatim/bench profile [file.cpuprofile]`: where a V8 CPU profile's time went,
 * by self time, grouped by package (or workspace package), and the top functions. Without an
 * argument it reads the largest profile in bench/results/profiles/ (`BENCH_PROFILE=true pnpm bench`
 * writes one for the service; of a run's profiles, the main thread's is the largest, the others
 * being loader threads). A bundle's positions (`pnpm start` runs `apps/server/dist/server.mjs`) are
 * read through the source map written beside it, so time is told by the package it came from.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs"
import { SourceMap } from "node:module"
import { dirname, join, resolve } from "node:path"
import { fileURLToPath } from "node:url"

interface Node {
  readonly id: number
  readonly callFrame: {
    readonly functionName: string
    readonly url: string
    readonly lineNumber: number
    readonly columnNumber: number
  }
  readonly children?: ReadonlyArray<number>
}
interface Profile {
  readonly nodes: ReadonlyArray<Node>
  readonly samples: ReadonlyArray<number>
  readonly timeDeltas: ReadonlyArray<number>
}

const profilesDir = join(dirname(fileURLToPath(import.meta.url)), "..", "results", "profiles")
const largest = () =>
  readdirSync(profilesDir)
    .filter((f) => f.endsWith(".cpuprofile"))
    .map((f) => join(profilesDir, f))
    .sort((a, b) => statSync(b).size - statSync(a).size)[0]

const file = process.argv[2] ?? largest()
if (file === undefined) throw new Error("no profile: run BENCH_PROFILE=true pnpm bench first")
const profile = JSON.parse(readFileSync(file, "utf8")) as Profile

const byId = new Map(profile.nodes.map((n) => [n.id, n]))
const self = new Map<number, number>()
profile.samples.forEach((id, i) => {
  self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0))
})
const sampled = [...self.values()].reduce((a, b) => a + b, 0)
const idle = [...self].reduce(
  (sum, [id, time]) => (byId.get(id)?.callFrame.functionName === "(idle)" ? sum + time : sum),
  0
)
/** Shares are of the busy time: a bench's profile is mostly the process waiting for the next request. */
const total = sampled - idle

/** The package a script belongs to: `effect`, `@effect/platform`, `@verbatim/api`, `(node)`... */
const groupOf = (url: string, name: string): string => {
  if (url === "") return name.startsWith("(") ? name : "(native)"
  if (url.startsWith("node:")) return "(node)"
  const modules = /node_modules\/((?:@[^/]+\/)?[^/]+)\/(?!.*node_modules)/.exec(url)
  if (modules?.[1] !== undefined) return modules[1]
  const workspace = /\/(packages|apps)\/([^/]+)\//.exec(url)
  return workspace === null ? url : `@verbatim/${workspace[2]}`
}

/** The source maps of the profile's scripts, by script URL (none for a script without a map beside it). */
const maps = new Map<string, SourceMap | undefined>()
const mapOf = (url: string): SourceMap | undefined => {
  if (!maps.has(url)) {
    const path = url.startsWith("file://") ? fileURLToPath(url) : url
    const mapFile = `${path}.map`
    maps.set(
      url,
      url !== "" && existsSync(mapFile) ? new SourceMap(JSON.parse(readFileSync(mapFile, "utf8"))) : undefined
    )
  }
  return maps.get(url)
}

/** Where a frame's code was written: through its script's source map when it has one. */
const original = (frame: Node["callFrame"]): { readonly url: string; readonly lineNumber: number } => {
  const map = mapOf(frame.url)
  if (map === undefined) return frame
  const entry = map.findEntry(frame.lineNumber, frame.columnNumber)
  if (!("originalSource" in entry)) return frame
  const path = fileURLToPath(frame.url)
  const source = entry.originalSource.startsWith("file://")
    ? entry.originalSource
    : `file://${resolve(dirname(path), entry.originalSource)}`
  return { url: source, lineNumber: entry.originalLine }
}

const groups = new Map<string, number>()
const functions = new Map<string, number>()
for (const [id, time] of self) {
  const node = byId.get(id)
  if (node === undefined || node.callFrame.functionName === "(idle)") continue
  const { functionName } = node.callFrame
  const { url, lineNumber } = original(node.callFrame)
  const group = groupOf(url, functionName)
  groups.set(group, (groups.get(group) ?? 0) + time)
  const where = `${functionName || "(anonymous)"} ${url.replace(/^.*node_modules\//, "").replace(/^file:\/\/.*\/(packages|apps)\//, "$1/")}:${lineNumber + 1}`
  functions.set(where, (functions.get(where) ?? 0) + time)
}

const pct = (t: number) => `${((100 * t) / total).toFixed(1)}%`
const top = (m: Map<string, number>, n: number) =>
  [...m.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([k, t]) => `| ${pct(t)} | ${k} |`)

process.stdout.write(
  [
    `${file}: ${(sampled / 1e6).toFixed(1)} s sampled, ${(total / 1e6).toFixed(1)} s busy (shares below are of the busy time)`,
    "",
    "| self | package |",
    "|---|---|",
    ...top(groups, 20),
    "",
    "| self | function |",
    "|---|---|",
    ...top(functions, 40),
    ""
  ].join("\n")
)
