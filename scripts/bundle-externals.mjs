/**
 * The esbuild plugin of `bundle.mjs`: which imports are bundled, which stay external (at the file
 * Node would load), and which are replaced by stand-ins that load their package at first use.
 */
import { readFileSync } from "node:fs"
import { createRequire } from "node:module"
import { pathToFileURL } from "node:url"
import { isDeepStrictEqual } from "node:util"

/**
 * Bundled from their sources: the workspace packages, and Effect's own packages (`effect`,
 * `@effect/*`), which are ES modules free of side effects, so only the modules the app uses are
 * kept (the platform's Swagger page, for one, is not). No external package imports Effect, so the
 * process holds one copy of it.
 */
const bundled = (path) =>
  path.startsWith("@verbatim/") ||
  path === "effect" ||
  path.startsWith("effect/") ||
  path.startsWith("@effect/")

/**
 * Packages that the bundle imports but a server almost never runs: `ws` (the platform's HTTP server
 * makes a WebSocket server at the first upgrade request; Verbatim serves none) and `fast-check`
 * (Effect's Schema imports it to build arbitraries, which only tests do), `toml` and `yaml`
 * (`@effect/cli` imports them to read configuration files, which `verbatim-admin` never asks it to:
 * about 60 ms of its start). Each is replaced by a
 * module with the same exports that loads the package at the first call of one of them: about
 * 9 MB less resident at start. A function export is a forwarder (called or constructed with `new`,
 * not subclassed), a registered symbol or a JSON value is copied as it is; any other kind of
 * export fails the bundle, so a new version that adds one is noticed here.
 */
const loadedOnFirstCall = new Set(["ws", "fast-check", "toml", "yaml"])

/**
 * The expression standing in for `value`, found in the loaded package at `path` (a list of keys): a
 * forwarder for a function, the same registered symbol or JSON value, an object of such members.
 */
const standIn = (value, path) => {
  const at = `load()${path.map((key) => `[${JSON.stringify(key)}]`).join("")}`
  if (typeof value === "function") {
    return `function (...args) { return new.target === undefined ? ${at}.apply(this, args) : Reflect.construct(${at}, args) }`
  }
  if (typeof value === "symbol" && Symbol.keyFor(value) !== undefined) {
    return `Symbol.for(${JSON.stringify(Symbol.keyFor(value))})`
  }
  if (value !== undefined && isDeepStrictEqual(JSON.parse(JSON.stringify(value)), value))
    return JSON.stringify(value)
  if (typeof value === "object" && value !== null && Object.getPrototypeOf(value) === Object.prototype) {
    const members = Object.keys(value).map(
      (key) => `${JSON.stringify(key)}: ${standIn(value[key], [...path, key])}`
    )
    return `{ ${members.join(", ")} }`
  }
  throw new Error(`export ${path.join(".")} can be neither forwarded nor copied`)
}

/**
 * The module standing in for the CommonJS package at `path` (see `loadedOnFirstCall`), without its
 * default export, which `export *` leaves out (an import of it fails the bundle).
 */
export const firstCallModule = (path) => {
  const real = createRequire(path)(path)
  const names = Object.keys(real).filter((name) => name !== "default")
  return [
    'import { createRequire } from "node:module"',
    "let loaded",
    `const load = () => (loaded ??= createRequire(${JSON.stringify(path)})(${JSON.stringify(path)}))`,
    ...names.map((name, index) => `const export${index} = ${standIn(real[name], [name])}`),
    `export { ${names.map((name, index) => `export${index} as ${JSON.stringify(name)}`).join(", ")} }`
  ].join("\n")
}

/**
 * Bare imports of every other package: external, at the file Node would load. In an ES module
 * bundle (`esm`) they stay imports of the package's file by URL; in a CommonJS bundle (`cjs`, see
 * `bundle.mjs`) an import, static or `import()`, becomes a `require` of the package's CommonJS entry
 * (resolved as a `require` would be: every package the apps import has one), by path.
 */
export const externalsFor = (format) => ({
  name: "externals",
  setup(bundle) {
    /** Resolves an import as esbuild would without this plugin, then answers with `answer(path)`. */
    const resolveThen = async (args, kind, answer) => {
      const resolved = await bundle.resolve(args.path, {
        kind,
        resolveDir: args.resolveDir,
        importer: args.importer,
        pluginData: "resolving"
      })
      return resolved.errors.length > 0 ? { errors: resolved.errors } : answer(resolved.path)
    }
    // A bundled package module that the code imports only with `import()` (the API reference page)
    // is bundled as a module of its own: the same file reached through a barrel (`@effect/platform`
    // re-exports every module) would otherwise put it in the code loaded at start.
    bundle.onResolve({ filter: /^@effect\// }, (args) => {
      if (args.kind !== "dynamic-import" || args.pluginData === "resolving") return undefined
      return resolveThen(args, args.kind, (path) => ({ path, suffix: "?import" }))
    })
    bundle.onResolve({ filter: /^(ws|fast-check|toml|yaml)$/ }, (args) => {
      if (!loadedOnFirstCall.has(args.path) || args.pluginData === "resolving") return undefined
      // The CommonJS entry, which `createRequire` loads at the first use.
      return resolveThen(args, "require-call", (path) => ({ path, namespace: "first-call" }))
    })
    bundle.onLoad({ filter: /.*/, namespace: "first-call" }, (args) => ({
      contents: firstCallModule(args.path),
      loader: "js"
    }))
    bundle.onResolve({ filter: /^[^./]/ }, (args) => {
      if (bundled(args.path) || args.pluginData === "resolving") return undefined
      if (args.path.startsWith("node:")) return { path: args.path, external: true }
      if (format === "cjs") {
        return resolveThen(args, "require-call", (path) => ({ path, external: true }))
      }
      return resolveThen(args, args.kind, (path) => ({ path: pathToFileURL(path).href, external: true }))
    })
    bundle.onLoad({ filter: /\.ts$/ }, (args) => {
      const source = readFileSync(args.path, "utf8")
      return {
        contents: source.replaceAll("import.meta.url", JSON.stringify(pathToFileURL(args.path).href)),
        loader: "ts"
      }
    })
  }
})

/** The plugin for ES module bundles. */
export const externals = externalsFor("esm")
