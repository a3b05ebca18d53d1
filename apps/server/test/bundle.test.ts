/**
 * The server bundle (`scripts/bundle.mjs`, what `pnpm start` runs): the modules it loads at start
 * leave out the database drivers (PGlite and node-postgres, each loaded with the database it opens)
 * and what a server rarely runs (`undici`, `ws`, `fast-check`), and the stand-ins
 * of `ws` and `fast-check` (`scripts/bundle-externals.mjs`) load their package at the first use and
 * then behave as it does. Built once: `--if-changed` (what the commands run before node) rebuilds
 * only when a source changed, and never under `NODE_ENV=production`.
 */
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync
} from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "@effect/vitest"
import { runCommand, spawnCommand } from "./commands.js"
import { bundledServer, repositoryRoot } from "./server-process.js"

const dist = join(repositoryRoot, "apps", "server", "dist")

/** The files a bundle module imports statically: its chunks, and the packages' files by URL. */
const staticImports = (file: string) => {
  const source = readFileSync(file, "utf8")
  return [...source.matchAll(/(?:\bfrom|^import)\s*"([^"]+)"/gm)].map((match) => match[1] ?? "")
}

/** Every package file loaded when `server.mjs` is, through the chunks it imports statically. */
const loadedAtStart = (): ReadonlyArray<string> => {
  const seen = new Set<string>()
  const packages: Array<string> = []
  const visit = (file: string) => {
    if (seen.has(file)) return
    seen.add(file)
    for (const target of staticImports(file)) {
      if (target.startsWith("./")) visit(join(file, "..", target))
      else packages.push(target)
    }
  }
  visit(join(dist, "server.mjs"))
  return packages
}

/** Runs an ES module script with node, in the repository, and returns what it printed. */
const runModule = (script: string): Promise<string> =>
  runCommand(process.execPath, ["--input-type=module", "-e", script], { cwd: repositoryRoot })

describe("the server bundle", () => {
  it("loads no database driver at start (neither PGlite nor node-postgres), nor undici, ws or fast-check; each driver is in chunks of its own", () => {
    bundledServer()
    const packages = loadedAtStart()
    expect(packages.filter((file) => /pglite|\/pg\/|sql-pg|undici|\/ws\/|fast-check/.test(file))).toEqual([])
    const chunks = readdirSync(join(dist, "chunks")).filter((name) => name.endsWith(".mjs"))
    const importing = (pattern: RegExp) =>
      chunks.filter((name) => staticImports(join(dist, "chunks", name)).some((file) => pattern.test(file)))
    expect(importing(/@electric-sql\/pglite/).length).toBeGreaterThan(0)
    expect(importing(/\/pg\/esm\//).length).toBeGreaterThan(0)
    // Neither driver's chunk loads the other's.
    expect(
      importing(/@electric-sql\/pglite/).filter((name) => importing(/\/pg\/esm\//).includes(name))
    ).toEqual([])
  }, 120_000)

  it("stands in for ws and fast-check, loading each at its first use", async () => {
    // Made in one process (which loads the packages to list their exports), used in another.
    const made = await runModule(`
      import { writeFileSync, mkdtempSync } from "node:fs"
      import { createRequire } from "node:module"
      import { tmpdir } from "node:os"
      import { join } from "node:path"
      import { firstCallModule } from "./scripts/bundle-externals.mjs"
      const fromServer = createRequire(join(process.cwd(), "apps/server/package.json"))
      const fromPlatform = createRequire(fromServer.resolve("@effect/platform-node/NodeSocket"))
      const fromEffect = createRequire(fromServer.resolve("effect"))
      const at = { ws: fromPlatform.resolve("ws"), fc: fromEffect.resolve("fast-check") }
      const dir = mkdtempSync(join(tmpdir(), "verbatim-stand-in-"))
      for (const name of ["ws", "fc"]) writeFileSync(join(dir, name + ".mjs"), firstCallModule(at[name]))
      console.log(JSON.stringify({ dir, at }))
    `)
    const { dir, at } = JSON.parse(made) as { dir: string; at: { ws: string; fc: string } }
    try {
      const printed = await runModule(`
        import { createRequire } from "node:module"
        const at = ${JSON.stringify(at)}
        const ws = await import(${JSON.stringify(join(dir, "ws.mjs"))})
        const fc = await import(${JSON.stringify(join(dir, "fc.mjs"))})
        const cache = createRequire(import.meta.url).cache
        const before = [at.ws in cache, at.fc in cache]
        const server = new ws.WebSocketServer({ noServer: true })
        const sample = fc.sample(fc.integer({ min: 1, max: 3 }), 20)
        const after = [at.ws in cache, at.fc in cache]
        const real = createRequire(at.ws)(at.ws)
        console.log(JSON.stringify({
          before,
          after,
          constructed: server instanceof real.WebSocketServer && server.clients instanceof Set,
          sampled: sample.length === 20 && sample.every((n) => n >= 1 && n <= 3),
          symbol: fc.cloneMethod === Symbol.for("fast-check/cloneMethod"),
          copied: fc.VerbosityLevel.Verbose === 1 && typeof ws.extension.parse === "function"
        }))
        server.close()
      `)
      expect(JSON.parse(printed)).toEqual({
        before: [false, false],
        after: [true, true],
        constructed: true,
        sampled: true,
        symbol: true,
        copied: true
      })
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  }, 60_000)
})

describe("built once", () => {
  const workerBundle = join(repositoryRoot, "apps", "worker", "dist", "worker.mjs")
  /** `node scripts/bundle.mjs --if-changed worker`, as `pnpm worker` runs it before node. */
  const check = (env: Record<string, string> = {}) =>
    runCommand(process.execPath, ["scripts/bundle.mjs", "--if-changed", "worker"], {
      cwd: repositoryRoot,
      env: { ...process.env, ...env }
    })
  // The sources touched below make every bundle stale: built again here, off the test worker's
  // event loop, so that no later test file builds one synchronously when it starts a process.
  afterAll(
    () =>
      runCommand(process.execPath, ["scripts/bundle.mjs", "--if-changed", "all"], { cwd: repositoryRoot }),
    300_000
  )
  /** The bundle file's identity: every build writes a new file and renames it into place. */
  const identity = () => statSync(workerBundle).ino

  it("does not rebuild when nothing changed, rebuilds when a source is touched, never in production", async () => {
    await check()
    const built = identity()
    await check()
    expect(identity()).toBe(built)
    const source = join(repositoryRoot, "apps", "worker", "src", "main.ts")
    const touch = () => {
      const later = new Date(Math.max(Date.now(), statSync(source).mtimeMs + 2_000))
      utimesSync(source, later, later)
    }
    touch()
    await check({ NODE_ENV: "production" })
    expect(identity()).toBe(built)
    await check()
    const rebuilt = identity()
    expect(rebuilt).not.toBe(built)
    await check()
    expect(identity()).toBe(rebuilt)
    // A workspace package the worker imports counts as a source too.
    const shared = join(repositoryRoot, "packages", "domain", "src", "index.ts")
    const at = new Date(statSync(shared).mtimeMs + 2_000)
    utimesSync(shared, at, at)
    await check()
    expect(identity()).not.toBe(rebuilt)
  }, 120_000)

  it("--run checks the bundle, then runs it in the same node with the arguments after the app's name", async () => {
    // What `pnpm admin` runs: the check, then the admin's bundle, which reads its own arguments
    // (`--if-changed` after the name is the admin's, which refuses it as it would any other).
    const run = (args: ReadonlyArray<string>) =>
      spawnCommand(process.execPath, ["scripts/bundle.mjs", "--if-changed", "--run", "admin", ...args], {
        cwd: repositoryRoot
      })
    const version = await run(["--version"])
    expect(version.status).toBe(0)
    expect(version.stdout.trim()).toBe(
      JSON.parse(readFileSync(join(repositoryRoot, "apps", "server", "package.json"), "utf8")).version
    )
    const wrong = await run(["accounts", "list", "--if-changed"])
    expect(wrong.status).not.toBe(0)
    expect(wrong.stdout + wrong.stderr).toMatch(/unknown argument: '--if-changed'/)
    const unknown = await run(["nope"])
    expect(unknown.status).not.toBe(0)
    expect(unknown.stdout + unknown.stderr).toMatch(/Invalid subcommand for verbatim-admin/)
  }, 120_000)

  it("--run runs the admin command from V8's code cache: made by a run without one, used by the next, replaced when it is another's", async () => {
    const cache = join(dist, "admin.cjs.cache")
    const version = JSON.parse(readFileSync(join(repositoryRoot, "apps", "server", "package.json"), "utf8"))
      .version as string
    /** `pnpm admin --version`, with node's options as `pnpm admin` gives them. */
    const run = async (nodeOptions = "") => {
      const done = await spawnCommand(
        process.execPath,
        ["--liftoff-only", "scripts/bundle.mjs", "--if-changed", "--run", "admin", "--version"],
        { cwd: repositoryRoot, env: { ...process.env, NODE_OPTIONS: nodeOptions } }
      )
      expect(done.stderr).toBe("")
      expect(done.status).toBe(0)
      expect(done.stdout.trim()).toBe(version)
    }
    rmSync(cache, { force: true })
    await run()
    // Written at the end of a run without one: a 16-byte key, then V8's data.
    const made = statSync(cache)
    const key = readFileSync(cache).subarray(0, 16)
    expect(made.size).toBeGreaterThan(100_000)
    // Used as it is by the next run (a rejected or unusable cache is written again, as a new file).
    await run()
    expect(statSync(cache).ino).toBe(made.ino)
    // A cache made for another bundle, node or options (another key): not used, and replaced.
    const other = readFileSync(cache)
    other.fill(0, 0, 16)
    writeFileSync(cache, other)
    const planted = statSync(cache).ino
    await run()
    expect(statSync(cache).ino).not.toBe(planted)
    expect(readFileSync(cache).subarray(0, 16).equals(key)).toBe(true)
    // Options given in NODE_OPTIONS count as node's options: another key, and back.
    await run("--max-old-space-size=512")
    expect(readFileSync(cache).subarray(0, 16).equals(key)).toBe(false)
    await run()
    expect(readFileSync(cache).subarray(0, 16).equals(key)).toBe(true)
    // The right key over data V8 rejects: the command runs all the same, and the cache is replaced.
    writeFileSync(cache, Buffer.concat([key, Buffer.alloc(4096, 7)]))
    const broken = statSync(cache).ino
    await run()
    expect(statSync(cache).ino).not.toBe(broken)
    expect(statSync(cache).size).toBeGreaterThan(100_000)
  }, 120_000)

  it("the admin command (one CommonJS file) requires a database driver only when it opens that database, run by pnpm admin or by node itself", async () => {
    const dir = mkdtempSync(join(tmpdir(), "verbatim-admin-drivers-"))
    try {
      // Printed as the process exits: the driver packages' files it required.
      const hook = join(dir, "loaded.cjs")
      writeFileSync(
        hook,
        `process.on("exit", () => process._rawDebug("LOADED " + JSON.stringify(Object.keys(require("node:module")._cache)
          .filter((file) => /\\/(@electric-sql\\/pglite|pg|pg-pool|undici)\\//.test(file))
          .map((file) => file.replace(/^.*\\/node_modules\\//, "").split("/").slice(0, file.includes("/@") ? 2 : 1).join("/")))))`
      )
      /** The driver packages the admin command loaded: run as `pnpm admin` runs it, or `direct`ly. */
      const loaded = async (args: ReadonlyArray<string>, env: Record<string, string>, direct = false) => {
        const launcher = direct
          ? [join("apps", "server", "dist", "admin.cjs")]
          : ["scripts/bundle.mjs", "--if-changed", "--run", "admin"]
        const done = await spawnCommand(process.execPath, ["-r", hook, ...launcher, ...args], {
          cwd: repositoryRoot,
          env: { ...process.env, ...env }
        })
        expect(done.status).toBe(0)
        const line = done.stderr.split("\n").find((text) => text.startsWith("LOADED ")) ?? "LOADED null"
        return [...new Set(JSON.parse(line.slice("LOADED ".length)) as Array<string>)].sort()
      }
      expect(await loaded(["--version"], { DATABASE_URL: "" })).toEqual([])
      expect(
        await loaded(["accounts", "list"], { DATABASE_URL: "", VERBATIM_DATA_DIR: join(dir, "data") })
      ).toEqual(["@electric-sql/pglite"])
      // The bundle run by node itself, as the image's documentation runs it (no code cache).
      expect(
        await loaded(["accounts", "list"], { DATABASE_URL: "", VERBATIM_DATA_DIR: join(dir, "data") }, true)
      ).toEqual(["@electric-sql/pglite"])
      const databaseUrl = process.env.DATABASE_URL
      if (databaseUrl !== undefined && databaseUrl !== "") {
        expect(await loaded(["accounts", "list"], { DATABASE_URL: databaseUrl })).toEqual(["pg", "pg-pool"])
      }
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  }, 120_000)

  it("with NODE_ENV=production, a missing bundle stops the start with a line saying how to build it", async () => {
    // The script in an empty checkout: nothing built there, and production never builds.
    const checkout = mkdtempSync(join(tmpdir(), "verbatim-unbuilt-"))
    try {
      mkdirSync(join(checkout, "scripts"))
      copyFileSync(join(repositoryRoot, "scripts", "bundle.mjs"), join(checkout, "scripts", "bundle.mjs"))
      const run = (args: ReadonlyArray<string>) =>
        spawnCommand(process.execPath, [join(checkout, "scripts", "bundle.mjs"), ...args], {
          env: { ...process.env, NODE_ENV: "production" }
        })
      for (const args of [
        ["--if-changed", "server"],
        ["--if-changed", "--run", "server", "--if-changed"]
      ]) {
        const start = await run(args)
        expect(start.status).toBe(1)
        expect(start.stderr).toMatch(
          /apps\/server\/dist\/server\.mjs is missing and NODE_ENV=production never builds/
        )
      }
      // A production install (the postinstall) builds nothing and succeeds.
      const install = await run(["--install", "all"])
      expect(install.status).toBe(0)
      expect(readdirSync(checkout)).toEqual(["scripts"])
    } finally {
      rmSync(checkout, { recursive: true, force: true })
    }
  })
})
