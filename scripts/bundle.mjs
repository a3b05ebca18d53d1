/**
 * `node scripts/bundle.mjs [--if-changed] <server|worker|admin|mcp|web|all>...`: each app as compiled
 * JavaScript, `apps/<app>/dist/<name>.mjs` (and its chunks: code reached only by `import()`), or
 * for the admin command one CommonJS file run from V8's code cache (`apps/server/dist/admin.cjs`,
 * see `apps` and `runCached`), which
 * `pnpm start`, `pnpm worker`, `pnpm admin` and `pnpm mcp` run with plain
 * `node` (no TypeScript loader: less memory and a faster start). The workspace packages are bundled
 * from their TypeScript sources, with Effect's packages; every other package stays external,
 * imported from the exact file that Node would load for it where it is installed, so the bundle
 * runs wherever this checkout is; two packages that a server almost never runs (`ws`, `fast-check`)
 * are stand-ins that load them at first use (`bundle-externals.mjs`).
 * `import.meta.url` in a workspace module keeps naming that module's own file (assets next to the
 * sources, such as the demo catalogue, are found as before). `web` is the web library's pages, a
 * browser bundle (`packages/web/build/app.js` and `app.css`), built and checked with the server.
 *
 * Built once: `pnpm install` bundles the apps (the root `postinstall`, `--install`: skipped
 * under `NODE_ENV=production` or without esbuild, as in a production-only install), and each command then
 * runs `node scripts/bundle.mjs --if-changed --run <app>`, which runs the bundle in its own process
 * after a check that rebuilds only when a file the
 * bundle was made from changed since (`<name>.build.json` beside the bundle lists every input file
 * with its size and modification time, and the bundle's own files; checking them takes a few
 * milliseconds, and esbuild is loaded only to rebuild). With `NODE_ENV=production` it never
 * rebuilds: a missing bundle is an error that says how to make it (esbuild is a development
 * dependency, and a production root filesystem may be read-only). Each file is written whole and
 * then renamed into place, so processes that bundle at once (several servers started together) never read half a bundle.
 * Source maps are written beside the bundles (without the sources' text, which the checkout holds)
 * but the commands run without `--enable-source-maps`: Node would load and keep every map of the
 * process (about 40 MB of heap for the server). To read stack traces in the sources' terms, run the
 * bundle with `node --enable-source-maps`.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs"
import { dirname, join, relative } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"

const root = join(dirname(fileURLToPath(import.meta.url)), "..")
/**
 * Each app: its entry, its folder, its name, and its bundle's format. The servers are ES modules
 * split into chunks (code reached only by `import()` is loaded only when asked for). The admin
 * command is one CommonJS file (`admin.cjs`), which `--run` compiles with V8's code cache (see
 * `runCached`): a command that runs for well under a second spends a fifth of it compiling, and
 * Node 20 caches no ES module's code.
 */
const apps = {
  server: ["apps/server/src/main.ts", "apps/server/dist", "server", "esm"],
  worker: ["apps/worker/src/main.ts", "apps/worker/dist", "worker", "esm"],
  admin: ["apps/server/src/admin.ts", "apps/server/dist", "admin", "cjs"],
  mcp: ["apps/mcp/src/main.ts", "apps/mcp/dist", "mcp", "esm"],
  // The web library's pages (`@verbatim/web`): a browser bundle, `build/app.js` and `build/app.css`,
  // which the server reads at start and serves under hashed names.
  web: ["packages/web/src/ui/main.tsx", "packages/web/build", "app", "browser"]
}
/** Bundles checked (and rebuilt) with an app: the server serves the web library's bundle. */
const companions = { server: ["web"] }
/** The bundle's main file, relative to the checkout. */
const entryOf = (app) => join(app[1], `${app[2]}.${{ cjs: "cjs", esm: "mjs", browser: "js" }[app[3]]}`)
/** Files that shape every bundle without being bundled: this script, its plugin, the lockfile. */
const alwaysInputs = ["scripts/bundle.mjs", "scripts/bundle-externals.mjs", "pnpm-lock.yaml"]

const args = process.argv.slice(2)
// `--run <app> [args...]`: checks (and rebuilds) that one app, then runs its bundle in this very
// process with the arguments after the app's name, which saves starting a second node (about 45 ms).
const firstName = args.findIndex((arg) => !arg.startsWith("--"))
const run = args.slice(0, firstName === -1 ? args.length : firstName).includes("--run")
const own = run ? args.slice(0, firstName) : args
const ifChanged = own.includes("--if-changed") || own.includes("--install")
const atInstall = own.includes("--install")
const names = run
  ? args.slice(firstName, firstName + 1)
  : args.filter((arg) => !arg.startsWith("--")).flatMap((arg) => (arg === "all" ? Object.keys(apps) : [arg]))
if (names.length === 0 || names.some((name) => apps[name] === undefined)) {
  process.stderr.write(
    `usage: node scripts/bundle.mjs [--if-changed|--install] <${Object.keys(apps).join("|")}|all>...\n` +
      `       node scripts/bundle.mjs [--if-changed] --run <${Object.keys(apps).join("|")}> [its arguments]\n`
  )
  process.exit(2)
}

/** `<outdir>/<name>.build.json`: what the last build of `app` was made from and what it wrote. */
const manifestPath = (app) => join(root, app[1], `${app[2]}.build.json`)

/** Size and modification time of a file, as the manifest records them (undefined when absent). */
const stamp = (file) => {
  try {
    const stats = statSync(join(root, file))
    return stats.isFile() ? [stats.size, stats.mtimeMs] : undefined
  } catch {
    return undefined
  }
}

/** Whether the bundle of `app` is there and every file it was made from is as it was then. */
const upToDate = (app) => {
  let manifest
  try {
    manifest = JSON.parse(readFileSync(manifestPath(app), "utf8"))
  } catch {
    return false
  }
  for (const [file, recorded] of Object.entries(manifest.inputs)) {
    const now = stamp(file)
    if (now === undefined || now[0] !== recorded[0] || now[1] !== recorded[1]) return false
  }
  return manifest.outputs.every((file) => existsSync(join(root, file)))
}

/** esbuild, or undefined where it is not installed (a production-only install). */
const loadEsbuild = async () => {
  try {
    return await import("esbuild")
  } catch {
    return undefined
  }
}

/**
 * A browser bundle's options: one minified ES module (and its CSS) for current browsers, JSX on
 * Preact, source maps beside it; the workspace's sources through their `@verbatim/source` condition.
 */
const browserOptions = (app) => ({
  entryPoints: { [app[2]]: join(root, app[0]) },
  absWorkingDir: root,
  outdir: join(root, app[1]),
  write: false,
  metafile: true,
  bundle: true,
  platform: "browser",
  format: "esm",
  target: ["es2020", "chrome100", "firefox100", "safari15"],
  conditions: ["@verbatim/source"],
  jsx: "automatic",
  jsxImportSource: "preact",
  minify: true,
  legalComments: "none",
  sourcemap: "linked",
  sourcesContent: false,
  logLevel: "warning"
})

const bundle = async (app) => {
  const began = Date.now()
  const esbuild = await loadEsbuild()
  if (esbuild === undefined) {
    process.stderr.write(
      "Cannot build the apps: esbuild is not installed (a production-only install). Build them where the development dependencies are (pnpm install).\n"
    )
    process.exit(1)
  }
  const { build } = esbuild
  const { externalsFor } = await import("./bundle-externals.mjs")
  const format = app[3]
  const result = await build(
    format === "browser"
      ? browserOptions(app)
      : {
          entryPoints: { [app[2]]: join(root, app[0]) },
          absWorkingDir: root,
          outdir: join(root, app[1]),
          outExtension: { ".js": format === "cjs" ? ".cjs" : ".mjs" },
          // Code reached only through `import()` (engines chosen by settings) goes into chunks of its own,
          // loaded with their packages only when a setting asks for them. A CommonJS bundle is one file,
          // where such code is still only run (and its packages required) when asked for.
          ...(format === "cjs"
            ? { supported: { "dynamic-import": false } }
            : { splitting: true, chunkNames: `chunks/${app[2]}-[hash]` }),
          write: false,
          metafile: true,
          bundle: true,
          platform: "node",
          format,
          target: "node20",
          conditions: ["@verbatim/source"],
          sourcemap: "linked",
          sourcesContent: false,
          logLevel: "warning",
          plugins: [externalsFor(format)]
        }
  )
  for (const file of result.outputFiles) {
    mkdirSync(dirname(file.path), { recursive: true })
    const partial = `${file.path}.${process.pid}.partial`
    writeFileSync(partial, file.contents)
    renameSync(partial, file.path)
  }
  // Inputs that are files (the plugin's stand-ins live in a namespace of their own), stamped after
  // the build; a file modified since the build began may have been read before the change, so it
  // is recorded as never matching, and the next check rebuilds.
  const inputs = {}
  for (const file of [...Object.keys(result.metafile.inputs), ...alwaysInputs]) {
    const now = stamp(file)
    if (now !== undefined) inputs[file] = now[1] >= began ? [-1, -1] : now
  }
  const outputs = result.outputFiles.map((file) => relative(root, file.path))
  const manifest = manifestPath(app)
  const partial = `${manifest}.${process.pid}.partial`
  writeFileSync(partial, `${JSON.stringify({ outputs, inputs })}\n`)
  renameSync(partial, manifest)
}

const production = process.env.NODE_ENV === "production"
// `pnpm install` (the root `postinstall`): builds what changed, except in a production install,
// which has no esbuild and runs bundles made in a build stage.
if (atInstall && (production || (await loadEsbuild()) === undefined)) process.exit(0)
await Promise.all(
  [...new Set(names.flatMap((name) => [name, ...(companions[name] ?? [])]))].map(async (name) => {
    const app = apps[name]
    // In production the web bundle was made in the build stage; the server says so when it is missing.
    if (ifChanged && production && app[3] === "browser") return
    if (ifChanged && production) {
      const entry = entryOf(app)
      if (existsSync(join(root, entry))) return
      process.stderr.write(
        `Verbatim cannot run: ${entry} is missing and NODE_ENV=production never builds; build it where the development dependencies are installed (pnpm install, or node scripts/bundle.mjs ${name})\n`
      )
      process.exit(1)
    }
    if (ifChanged && upToDate(app)) return
    await bundle(app)
  })
)
/**
 * Runs a CommonJS bundle as Node would require it, compiled with V8's code cache: the bytecode of
 * every function the last run compiled, in `<bundle>.cache` beside it (about the bundle's size).
 * The cache names the bundle's content, Node's version and node's options (its arguments and
 * `NODE_OPTIONS`) by a hash: a cache made
 * for anything else is not used (V8 itself checks only the source's length), nor one V8 rejects.
 * Without a usable cache the bundle is compiled as usual, and the cache is written when the
 * process exits (with the functions the run compiled); where it cannot be written (a read-only
 * folder), the bundle simply runs without one.
 */
const runCached = async (entry) => {
  const [{ createHash }, { default: vm }, { default: Module }] = await Promise.all([
    import("node:crypto"),
    import("node:vm"),
    import("node:module")
  ])
  const source = readFileSync(entry, "utf8")
  const cacheFile = `${entry}.cache`
  const key = createHash("sha256")
    .update(`${process.version}\0${process.execArgv.join("\0")}\0${process.env.NODE_OPTIONS ?? ""}\0`)
    .update(source)
    .digest()
    .subarray(0, 16)
  let cachedData
  try {
    const file = readFileSync(cacheFile)
    if (file.subarray(0, key.length).equals(key)) cachedData = file.subarray(key.length)
  } catch {}
  // No `importModuleDynamically`: a CommonJS bundle's `import()`s are `require`s (see `bundle`).
  const script = new vm.Script(Module.wrap(source), { filename: entry, cachedData })
  if (cachedData === undefined || script.cachedDataRejected) {
    process.once("exit", () => {
      const partial = `${cacheFile}.${process.pid}.partial`
      try {
        writeFileSync(partial, Buffer.concat([key, script.createCachedData()]))
        renameSync(partial, cacheFile)
      } catch {
        rmSync(partial, { force: true })
      }
    })
  }
  const module = { exports: {}, id: entry, filename: entry, loaded: false, children: [], paths: [] }
  script.runInThisContext()(module.exports, Module.createRequire(entry), module, entry, dirname(entry))
}

if (run) {
  const app = apps[names[0]]
  const entry = join(root, entryOf(app))
  // The app reads its arguments from `process.argv` as if node had been started on its bundle.
  process.argv = [process.argv[0], entry, ...args.slice(firstName + 1)]
  if (app[3] === "cjs") await runCached(entry)
  else await import(pathToFileURL(entry).href)
}
