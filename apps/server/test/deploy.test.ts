/**
 * The deployment example (`deploy/compose.yaml`, `deploy/README.md`) cannot drift from the code:
 *
 * - every variable compose gives a server (`pnpm start`) or a worker (`pnpm worker`) is one that
 *   app's settings read (`ServerConfig`; the worker's `InfrastructureConfig` and `LogConfig`), and
 *   the settings accept the values given (the settings are run over that environment, recording
 *   every variable they ask for);
 * - every such variable is in deploy/README.md's table of server and worker settings and in the main
 *   README's "Settings", and the table names nothing compose does not give;
 * - every `${VARIABLE}` compose reads from `deploy/.env` is in the README's deployment table.
 *
 * Docker is not needed: compose.yaml is read with a small reader of the subset it is written in
 * (maps, `&anchors` and `<<: *anchor` merges, scalars, flow sequences; block lists are skipped), which fails on any other
 * line it meets.
 */
import { readFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "@effect/vitest"
import { AssemblyAiConfig } from "@verbatim/assemblyai"
import { PocketsphinxConfig } from "@verbatim/pocketsphinx"
import {
  HeartbeatConfig,
  InfrastructureConfig,
  LogConfig,
  resolveSecretFiles,
  secretSettings
} from "@verbatim/runtime"
import { Config, ConfigProvider, Effect, Either } from "effect"
import { ServerConfig } from "../src/config.js"

const root = join(dirname(fileURLToPath(import.meta.url)), "../../..")
const read = (path: string) => readFileSync(join(root, path), "utf8")

interface Line {
  readonly indent: number
  readonly key: string
  /** The scalar after the colon; `undefined` when a block follows (or the value is empty). */
  readonly value: string | undefined
}

/** Flow sequences written over several lines (as Biome formats long ones) put back on one line. */
const joinFlowSequences = (text: string): string =>
  text.replace(
    /:\n\s*\[\n([\s\S]*?)\n\s*\]/g,
    (_, items: string) =>
      `: [${items
        .split("\n")
        .map((item) => item.trim())
        .join(" ")
        .replace(/,$/, "")}]`
  )

/** The lines of a YAML file of maps and scalars (list items and comments left out). */
const linesOf = (text: string): ReadonlyArray<Line> =>
  joinFlowSequences(text)
    .split("\n")
    .flatMap((raw): ReadonlyArray<Line> => {
      const trimmed = raw.trim()
      // Blank lines, comments, list items and flow sequences continued on their own line are not maps.
      if (trimmed === "" || trimmed.startsWith("#") || trimmed.startsWith("- ") || trimmed.startsWith("["))
        return []
      const match = /^( *)("?[^":]+"?|<<):(?: (.*))?$/.exec(raw)
      if (match === null) throw new Error(`compose.yaml: cannot read ${JSON.stringify(raw)}`)
      const value = match[3]?.trim()
      return [
        {
          indent: match[1]?.length ?? 0,
          key: (match[2] ?? "").replace(/^"|"$/g, ""),
          value: value === undefined || value === "" ? undefined : value.replace(/^"(.*)"$/, "$1")
        }
      ]
    })

/** The lines nested under the line at `index` (deeper indentation, until the block ends). */
const blockAfter = (lines: ReadonlyArray<Line>, index: number): ReadonlyArray<Line> => {
  const indent = lines[index]?.indent ?? 0
  const end = lines.findIndex((line, i) => i > index && line.indent <= indent)
  return lines.slice(index + 1, end === -1 ? lines.length : end)
}

/** The direct children of a block, as a map (`<<: *anchor` merged in from `anchors`). */
const mapOf = (
  block: ReadonlyArray<Line>,
  anchors: ReadonlyMap<string, ReadonlyMap<string, string | undefined>>
): ReadonlyMap<string, string | undefined> => {
  const indent = Math.min(...block.map((line) => line.indent))
  const map = new Map<string, string | undefined>()
  for (const line of block.filter((candidate) => candidate.indent === indent)) {
    if (line.key === "<<") {
      const anchor = anchors.get((line.value ?? "").replace(/^\*/, ""))
      if (anchor === undefined) throw new Error(`compose.yaml: unknown anchor ${line.value}`)
      for (const [key, value] of anchor) map.set(key, value)
    } else map.set(line.key, line.value)
  }
  return map
}

interface AppService {
  readonly name: string
  readonly command: string
  readonly environment: ReadonlyMap<string, string | undefined>
}

const composeText = read("deploy/compose.yaml")

/** The services of compose.yaml that run an app, with their command and merged environment. */
const appServices = (): ReadonlyArray<AppService> => {
  const lines = linesOf(composeText)
  const anchors = new Map<string, ReadonlyMap<string, string | undefined>>()
  lines.forEach((line, index) => {
    const anchor = /^&([\w-]+)$/.exec(line.value ?? "")
    if (line.indent === 0 && anchor?.[1] !== undefined)
      anchors.set(anchor[1], mapOf(blockAfter(lines, index), anchors))
  })
  const servicesAt = lines.findIndex((line) => line.indent === 0 && line.key === "services")
  const services = blockAfter(lines, servicesAt)
  const serviceIndent = Math.min(...services.map((line) => line.indent))
  return services.flatMap((line, index) => {
    if (line.indent !== serviceIndent) return []
    const body = blockAfter(services, index)
    const fields = mapOf(body, anchors)
    const command = fields.get("command") ?? ""
    if (!/dist\/(server|worker)\.mjs"\]$/.test(command)) return []
    const environmentAt = body.findIndex(
      (field) => field.key === "environment" && field.indent === body[0]?.indent
    )
    return [{ name: line.key, command, environment: mapOf(blockAfter(body, environmentAt), anchors) }]
  })
}

/** Values for what compose takes from `deploy/.env`: `${NAME:-default}` is its default. */
const sampleEnv: Record<string, string> = {
  VERBATIM_IMAGE_TAG: "0.1.0"
}

/** What the secrets' files (`/run/secrets/<name>`, deploy/make-secrets.sh) hold, in their form. */
const sampleSecrets: Record<string, string> = {
  "/run/secrets/database_url": "postgres://verbatim:0123456789abcdef@postgres:5432/verbatim",
  "/run/secrets/blob_signing_key": "a-sample-signing-key-of-forty-characters",
  // Written empty by make-secrets.sh: the local engine, until the operator puts a key in it.
  "/run/secrets/assemblyai_api_key": ""
}

const interpolate = (value: string): string =>
  value.replace(/\$\{(\w+)(?::([-?])([^}]*))?\}/g, (_, name: string, kind?: string, rest?: string) =>
    kind === "-" ? (rest ?? "") : (sampleEnv[name] ?? "sample")
  )

/** Runs a config over exactly `env`, recording every variable it asks for. */
const readWith = <A>(config: Config.Config<A>, env: ReadonlyMap<string, string>) => {
  const asked = new Set<string>()
  const inner = ConfigProvider.fromMap(new Map(env)).flattened
  const recording = ConfigProvider.fromFlat(
    ConfigProvider.makeFlat({
      load: (path, primitive, split) => {
        asked.add(path.join("."))
        return inner.load(path, primitive, split)
      },
      enumerateChildren: (path) => inner.enumerateChildren(path),
      patch: inner.patch
    })
  )
  const result = Effect.runSync(Effect.either(Effect.withConfigProvider(config, recording)))
  return { result, asked }
}

/** The backticked variable names of the first column of the table under `heading`. */
const tableVariables = (markdown: string, heading: string): ReadonlyArray<string> => {
  const start = markdown.indexOf(heading)
  expect(start, heading).toBeGreaterThanOrEqual(0)
  const section = markdown.slice(start + heading.length).split("\n## ")[0] ?? ""
  return section
    .split("\n")
    .filter((row) => row.startsWith("| `"))
    .map((row) => /^\| `([A-Z0-9_]+)`/.exec(row)?.[1] ?? "")
}

const deployReadme = read("deploy/README.md")
const services = appServices()
const given = [...new Set(services.flatMap((service) => [...service.environment.keys()]))].sort()

describe("deploy/compose.yaml", () => {
  it("runs the API servers' and the workers' bundles with node, as the image's CMD does", () => {
    expect(services.map((service) => [service.name, service.command])).toEqual([
      [
        "api",
        '["--liftoff-only", "--max-semi-space-size=8", "--heap-growing-percent=100", "apps/server/dist/server.mjs"]'
      ],
      ["worker", '["apps/worker/dist/worker.mjs"]']
    ])
    expect(read("deploy/Dockerfile")).toContain(
      'CMD ["--liftoff-only", "--max-semi-space-size=8", "--heap-growing-percent=100", "apps/server/dist/server.mjs"]'
    )
    expect(given).toContain("DATABASE_URL_FILE")
    expect(given).toContain("REDIS_URL")
  })

  it.each(services.map((service) => [service.name, service] as const))(
    "%s: every variable is read by the app's settings, which accept the values",
    (_, service) => {
      // A variable passed through from deploy/.env (no value here) is read as the deployer may set it.
      const given = new Map<string, string>()
      for (const [key, value] of service.environment) given.set(key, interpolate(value ?? `\${${key}}`))
      // Secrets' files read as the process reads them at start (`withSecretFiles`).
      const resolved = resolveSecretFiles(Object.fromEntries(given), (path) => {
        const content = sampleSecrets[path]
        if (content === undefined) throw new Error(`no sample for ${path}`)
        return content
      })
      expect(Either.isRight(resolved), String(Either.isLeft(resolved) && resolved.left)).toBe(true)
      const env = new Map(Object.entries(Either.getOrElse(resolved, () => ({}))))
      // What the process reads at start: the server's settings, or the worker's (infrastructure and
      // logs), and the speech engine's that those choose (AssemblyAI when its key is set: `speechFor`).
      const configs: ReadonlyArray<Config.Config<unknown>> = [
        ...(service.command.includes("server.mjs")
          ? [ServerConfig]
          : [InfrastructureConfig, LogConfig, HeartbeatConfig, PocketsphinxConfig]),
        // speechFor (runtime's media.ts) asks whether AssemblyAI's key is set; its settings only then.
        Config.option(Config.redacted("ASSEMBLYAI_API_KEY")),
        ...(env.has("ASSEMBLYAI_API_KEY") ? [AssemblyAiConfig] : [])
      ]
      const asked = new Set<string>()
      for (const config of configs) {
        const settings = readWith(config, env)
        expect(
          Either.isRight(settings.result),
          String(Either.isLeft(settings.result) && settings.result.left)
        ).toBe(true)
        for (const key of settings.asked) asked.add(key)
      }
      const read = (key: string) =>
        asked.has(key) || secretSettings.some((name) => key === `${name}_FILE` && asked.has(name))
      const unread = [...service.environment.keys()].filter((key) => !read(key))
      expect(unread, `${service.name} is given variables its settings never read`).toEqual([])
    }
  )
})

describe("deploy/README.md", () => {
  it("lists exactly the variables compose gives the servers and workers", () => {
    expect([...tableVariables(deployReadme, "## Settings of the servers and workers")].sort()).toEqual(given)
  })

  it("lists every variable compose reads from deploy/.env, and each is used", () => {
    const documented = tableVariables(deployReadme, "## Deployment settings")
    const interpolated = [...new Set([...composeText.matchAll(/\$\{(\w+)/g)].map((m) => m[1] ?? ""))]
    const passedThrough = [...services.flatMap((service) => [...service.environment])]
      .filter(([, value]) => value === undefined)
      .map(([key]) => key)
    expect([...new Set([...interpolated, ...passedThrough])].sort()).toEqual([...documented].sort())
  })

  it("every server and worker variable is also in the main README's settings", () => {
    const settings = read("README.md").split("### Settings")[1]?.split("\n## ")[0] ?? ""
    const listed = [...settings.matchAll(/`([A-Z][A-Z0-9_]*)(\*?)`/g)].map((m) => ({
      name: m[1] ?? "",
      prefix: m[2] === "*"
    }))
    const missing = given.filter(
      (name) => !listed.some((entry) => (entry.prefix ? name.startsWith(entry.name) : name === entry.name))
    )
    expect(missing).toEqual([])
  })
})
