/**
 * The arrows of docs/design.md, checked on the source: `domain` imports nothing but `effect`; `core`
 * imports `effect` and `domain` and never a driver, an SDK, `node:*` or `api`; `contract` imports
 * only `effect`, `@effect/platform` and `domain`, so a client of the API needs no server code; the
 * MCP tools never import `api` (the Streamable HTTP route is the server's); no
 * package imports an app, and no app's source imports the test wiring; the web library's pages
 * import only Preact. A new package gets its rule here.
 */
import { readdirSync, readFileSync, statSync } from "node:fs"
import { join, relative } from "node:path"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "@effect/vitest"

const root = fileURLToPath(new URL("../../..", import.meta.url))

const sourceFiles = (dir: string): ReadonlyArray<string> =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) return sourceFiles(path)
    return /\.tsx?$/.test(name) && !name.endsWith(".d.ts") ? [path] : []
  })

const importPattern =
  /(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s+["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)|(?:^|\n)\s*import\s+["']([^"']+)["']/g

/** Every bare (non-relative) module a file imports or re-exports. */
const importsOf = (file: string): ReadonlyArray<string> =>
  [...readFileSync(file, "utf8").matchAll(importPattern)]
    .map((m) => m[1] ?? m[2] ?? m[3] ?? "")
    .filter((specifier) => specifier !== "" && !specifier.startsWith("."))

const packageOf = (specifier: string): string =>
  specifier.startsWith("@")
    ? specifier.split("/").slice(0, 2).join("/")
    : (specifier.split("/")[0] ?? specifier)

const violations = (srcDir: string, allowed: (pkg: string) => boolean) =>
  sourceFiles(join(root, srcDir)).flatMap((file) =>
    importsOf(file)
      .filter((specifier) => !allowed(packageOf(specifier)))
      .map((specifier) => `${relative(root, file)} imports ${specifier}`)
  )

describe("dependency arrows", () => {
  it("finds the imports it checks (the scanner works)", () => {
    const domainImports = sourceFiles(join(root, "packages/domain/src")).flatMap(importsOf)
    expect(domainImports).toContain("effect")
    const coreImports = sourceFiles(join(root, "packages/core/src")).flatMap(importsOf)
    expect(coreImports).toContain("@verbatim/domain")
  })

  it("domain imports nothing but effect", () => {
    expect(violations("packages/domain/src", (pkg) => pkg === "effect")).toEqual([])
  })

  it("core imports only effect and domain: no driver, SDK, node:* or api", () => {
    expect(violations("packages/core/src", (pkg) => pkg === "effect" || pkg === "@verbatim/domain")).toEqual(
      []
    )
  })

  const contractDependencies = new Set(["effect", "@effect/platform", "@verbatim/domain"])
  it("contract imports and depends on only effect, @effect/platform and domain", () => {
    expect(violations("packages/contract/src", (pkg) => contractDependencies.has(pkg))).toEqual([])
    const manifest: { readonly dependencies?: Record<string, string> } = JSON.parse(
      readFileSync(join(root, "packages/contract/package.json"), "utf8")
    )
    expect(Object.keys(manifest.dependencies ?? {}).sort()).toEqual([...contractDependencies].sort())
  })

  it("no app and no package source imports the test wiring (@verbatim/runtime/testing)", () => {
    const sources = [
      "apps/server/src",
      "apps/worker/src",
      "apps/mcp/src",
      "packages/api/src",
      "packages/mcp/src"
    ]
    expect(
      sources.flatMap((dir) =>
        sourceFiles(join(root, dir)).flatMap((file) =>
          importsOf(file)
            .filter((specifier) => specifier === "@verbatim/runtime/testing")
            .map((specifier) => `${relative(root, file)} imports ${specifier}`)
        )
      )
    ).toEqual([])
  })

  it("the MCP tools use the contract, never the server's HTTP package (the transport route lives in api)", () => {
    expect(violations("packages/mcp/src", (pkg) => pkg !== "@verbatim/api")).toEqual([])
    const manifest: { readonly dependencies?: Record<string, string> } = JSON.parse(
      readFileSync(join(root, "packages/mcp/package.json"), "utf8")
    )
    expect(Object.keys(manifest.dependencies ?? {})).not.toContain("@verbatim/api")
  })

  const apps = new Set(["@verbatim/server", "@verbatim/worker", "@verbatim/mcp"])
  const packagesDir = join(root, "packages")
  const packages = readdirSync(packagesDir).filter((name) => statSync(join(packagesDir, name)).isDirectory())

  it("no package imports an app", () => {
    expect(packages.flatMap((name) => violations(`packages/${name}/src`, (pkg) => !apps.has(pkg)))).toEqual(
      []
    )
  })

  // Adapters implement core's ports: they know neither the HTTP contract nor the wiring that picks them.
  const adapters = [
    "apertium",
    "assemblyai",
    "db",
    "demo-platform",
    "llm",
    "pocketsphinx",
    "themes-local",
    "queue",
    "storage",
    "webhooks",
    "youtube"
  ]
  it.each(adapters)("the %s adapter imports neither api nor runtime", (name) => {
    expect(
      violations(`packages/${name}/src`, (pkg) => pkg !== "@verbatim/api" && pkg !== "@verbatim/runtime")
    ).toEqual([])
  })

  // The web library's pages run in the browser: Preact and each other, nothing of the server.
  it("the web library's pages (packages/web/src/ui) import only preact", () => {
    expect(sourceFiles(join(root, "packages/web/src/ui")).length).toBeGreaterThan(0)
    expect(violations("packages/web/src/ui", (pkg) => pkg === "preact")).toEqual([])
  })

  it("processes (children bound to their parent, owned temporary folders) imports only effect and node", () => {
    expect(
      violations("packages/processes/src", (pkg) => pkg === "effect" || pkg.startsWith("node:"))
    ).toEqual([])
  })

  it("the api and the MCP tools reach the infrastructure only through core's ports", () => {
    const drivers = new Set([
      "pg",
      "@electric-sql/pglite",
      "ioredis",
      "bullmq",
      "@aws-sdk/client-s3",
      "@effect/sql-pg"
    ])
    for (const name of ["api", "mcp"]) {
      expect(
        violations(`packages/${name}/src`, (pkg) => !drivers.has(pkg) && !pkg.startsWith("node:fs"))
      ).toEqual([])
    }
  })
})
