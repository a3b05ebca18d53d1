/**
 * Every public package (a package.json without `"private": true`) is packed the way a release
 * packs it, with nothing built beforehand: its `prepack` script builds it. The tarball holds the
 * build, the README, the LICENSE and the CHANGELOG; every file its package.json points at (`main`,
 * `types`, `exports`, `bin`) is in it; it names its repository, homepage, issue tracker and the
 * Node.js versions it runs on. `@verbatim/domain` is then installed into an empty folder and its
 * README's examples run there, as an ES module and as CommonJS, and a TypeScript file importing it
 * type-checks with `moduleResolution` node16, nodenext, bundler and node.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { runCommand, spawnCommand } from "./commands.js"
import { repositoryRoot } from "./server-process.js"

/** The commands as this file runs them: in a folder, without blocking the test worker. */
const spawn = (command: string, args: ReadonlyArray<string>, cwd: string) =>
  spawnCommand(command, args, { cwd })
const run = (command: string, args: ReadonlyArray<string>, cwd: string) => runCommand(command, args, { cwd })

interface Manifest {
  readonly name: string
  readonly private?: boolean
  readonly main?: string
  readonly types?: string
  readonly bin?: Record<string, string>
  readonly exports?: unknown
  readonly repository?: unknown
  readonly homepage?: string
  readonly bugs?: unknown
  readonly engines?: { readonly node?: string }
}

const readManifest = (file: string): Manifest => JSON.parse(readFileSync(file, "utf8")) as Manifest

/** The folders of the public packages: workspace packages and apps, and `apps/mcp/npm`. */
const publicPackages = (): ReadonlyArray<string> => {
  const folders = ["packages", "apps"].flatMap((parent) =>
    readdirSync(join(repositoryRoot, parent)).map((name) => join(parent, name))
  )
  return [...folders, "apps/mcp/npm"].filter((folder) => {
    const file = join(repositoryRoot, folder, "package.json")
    return existsSync(file) && readManifest(file).private !== true
  })
}

/** Every path a manifest points at inside its package, without `./`; source conditions left out. */
const pointedAt = (manifest: Manifest): ReadonlyArray<string> => {
  const found: Array<string> = []
  const walk = (value: unknown, key: string): void => {
    if (typeof value === "string") {
      if (key !== "@verbatim/source") found.push(value)
    } else if (typeof value === "object" && value !== null) {
      for (const [k, v] of Object.entries(value)) walk(v, k)
    }
  }
  walk(manifest.main, "main")
  walk(manifest.types, "types")
  walk(manifest.bin, "bin")
  walk(manifest.exports, "exports")
  return found.map((path) => path.replace(/^\.\//, ""))
}

/** Packs a public package (its `prepack` builds it) into `into`; the tarball's path. */
const pack = async (folder: string, into: string): Promise<string> => {
  const dir = join(repositoryRoot, folder)
  // Nothing built beforehand: the pack must build.
  rmSync(join(dir, "dist"), { recursive: true, force: true })
  const before = new Set(readdirSync(into))
  // pnpm writes the catalogue's versions in place of `catalog:` and `workspace:*`; the MCP
  // package is no workspace package (it is bundled), npm packs it.
  if (folder === "apps/mcp/npm") await run("npm", ["pack", "--pack-destination", into], dir)
  else await run("pnpm", ["pack", "--pack-destination", into], dir)
  const tarball = readdirSync(into).find((file) => file.endsWith(".tgz") && !before.has(file))
  if (tarball === undefined) throw new Error(`no tarball of ${folder} in ${into}`)
  return join(into, tarball)
}

/** The fenced `js` blocks of a README, in order. */
const jsExamples = (readme: string): ReadonlyArray<string> =>
  [...readme.matchAll(/```js\n([\s\S]*?)```/g)].map((match) => match[1] ?? "")

describe("the public packages, packed as a release packs them", () => {
  it("the public packages are @verbatim/domain, @verbatim/contract and verbatim-mcp", () => {
    expect(
      publicPackages().map((folder) => readManifest(join(repositoryRoot, folder, "package.json")).name)
    ).toEqual(expect.arrayContaining(["@verbatim/domain", "@verbatim/contract", "verbatim-mcp"]))
  })

  it("each public package builds when packed; its tarball holds dist, README, LICENSE, CHANGELOG and every file its package.json points at", async () => {
    const into = mkdtempSync(join(tmpdir(), "verbatim-pack-"))
    try {
      for (const folder of publicPackages()) {
        const tarball = await pack(folder, into)
        const listed = (await run("tar", ["tzf", tarball], into))
          .trim()
          .split("\n")
          .map((path) => path.replace(/^package\//, ""))
        const unpacked = mkdtempSync(join(into, "unpacked-"))
        await run("tar", ["xzf", tarball, "-C", unpacked], into)
        const manifest = readManifest(join(unpacked, "package", "package.json"))
        const label = `${manifest.name} (${folder})`
        expect(listed.filter((path) => path.startsWith("dist/")).length, label).toBeGreaterThan(0)
        expect(listed, label).toEqual(expect.arrayContaining(["README.md", "LICENSE", "CHANGELOG.md"]))
        const targets = pointedAt(manifest)
        expect(targets.length, label).toBeGreaterThan(0)
        for (const target of targets) expect(listed, `${label}: ${target}`).toContain(target)
        expect(manifest.repository, label).toBeDefined()
        expect(manifest.homepage, label).toBeDefined()
        expect(manifest.bugs, label).toBeDefined()
        expect(manifest.engines?.node, label).toBeDefined()
        const readme = readFileSync(join(unpacked, "package", "README.md"), "utf8")
        // Links inside the package work on the registry's page: none climbs out of the package.
        expect(readme, label).not.toMatch(/\]\(\.\.\//)
      }
    } finally {
      rmSync(into, { recursive: true, force: true })
    }
  }, 900_000)

  it("@verbatim/domain installed from its tarball runs its README's examples as ESM and CommonJS and type-checks with node16, nodenext, bundler and node resolution", async () => {
    const project = mkdtempSync(join(tmpdir(), "verbatim-domain-"))
    try {
      const tarball = await pack("packages/domain", project)
      writeFileSync(
        join(project, "package.json"),
        JSON.stringify({ name: "user", private: true, type: "module" })
      )
      await run("npm", ["install", "--no-audit", "--no-fund", "--loglevel=error", tarball], project)
      const readme = readFileSync(join(repositoryRoot, "packages/domain/README.md"), "utf8")
      const [esm, cjs] = jsExamples(readme)
      expect(esm).toContain("import ")
      expect(cjs).toContain("require(")
      writeFileSync(join(project, "example.mjs"), esm ?? "")
      writeFileSync(join(project, "example.cjs"), cjs ?? "")
      expect((await run("node", ["example.mjs"], project)).trim()).toBe("54")
      expect((await run("node", ["example.cjs"], project)).trim()).toBe("7")

      writeFileSync(
        join(project, "index.ts"),
        [
          'import { Pricing } from "@verbatim/domain"',
          "const credits: number = Pricing.estimate({ durationSeconds: 60, addOns: [] }).estimated_credits",
          "export { credits }",
          ""
        ].join("\n")
      )
      const tsc = join(repositoryRoot, "node_modules/.bin/tsc")
      for (const [module, moduleResolution] of [
        ["node16", "node16"],
        ["nodenext", "nodenext"],
        ["esnext", "bundler"],
        ["commonjs", "node"]
      ] as const) {
        const config = {
          compilerOptions: {
            module,
            moduleResolution,
            target: "es2022",
            strict: true,
            noEmit: true,
            skipLibCheck: true
          },
          files: ["index.ts"]
        }
        writeFileSync(join(project, `tsconfig.${moduleResolution}.json`), JSON.stringify(config))
        const result = await spawn(tsc, ["-p", `tsconfig.${moduleResolution}.json`], project)
        expect(`${moduleResolution}: ${result.status} ${result.stdout}`).toBe(`${moduleResolution}: 0 `)
      }
    } finally {
      rmSync(project, { recursive: true, force: true })
    }
  }, 900_000)
})
