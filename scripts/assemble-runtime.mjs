/**
 * `node scripts/assemble-runtime.mjs <dest>`: the files a production server, worker and admin
 * command need, copied from this checkout (bundled already: `pnpm install` or `scripts/bundle.mjs`)
 * to `<dest>` under the same relative paths. The production image's runtime stage is exactly this
 * folder (deploy/Dockerfile copies it to /app, the checkout's path in the build stage), and
 * `apps/server/test/deploy-image.test.ts` runs the server from it, so what the image holds is what
 * was tested.
 *
 * Why a closure and not `pnpm install --prod`: the bundles hold the workspace packages and Effect;
 * they import every other package from the exact file in `node_modules/.pnpm` (an absolute path,
 * see scripts/bundle.mjs), so the runtime needs those package folders and the folders of their own
 * dependencies, nothing else: no TypeScript, no Effect sources, no test or build tools.
 *
 * Copied:
 * - `package.json` (root), `apps/{server,worker}/dist` (bundles, chunks, maps);
 * - the folder of each workspace module a bundle names by path (`import.meta.url`: the demo
 *   catalogue, the PGlite template), tests and build output left out, and the links of its
 *   production dependencies (`createRequire` from its folder);
 * - every `node_modules/.pnpm/<entry>` a bundle imports from, and, following the symlinks of each
 *   entry's `node_modules`, the entries those depend on.
 */
import {
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync
} from "node:fs"
import { dirname, join, relative, resolve, sep } from "node:path"
import { fileURLToPath } from "node:url"

const root = join(dirname(fileURLToPath(import.meta.url)), "..")
/** The bundles' folders: what the image runs. */
export const bundleDirs = ["apps/server/dist", "apps/worker/dist"]
const store = "node_modules/.pnpm"

/** Every bundle file under a folder: ES modules (`.mjs`) and the admin command's CommonJS (`.cjs`). */
const modules = (dir) =>
  readdirSync(join(root, dir), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && /\.[cm]js$/.test(entry.name))
    .map((entry) => join(entry.parentPath ?? entry.path, entry.name))

/** The checkout's paths the bundles name (files they import or read), relative to the root. */
export const namedPaths = () => {
  const prefix = `${root}${sep}`
  const found = new Set()
  const pattern = new RegExp(`(?:file://)?${root.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}/[^"'\`\\s)]+`, "g")
  for (const dir of bundleDirs) {
    for (const file of modules(dir)) {
      for (const match of readFileSync(file, "utf8").matchAll(pattern)) {
        const path = match[0].replace(/^file:\/\//, "")
        if (path.startsWith(prefix)) found.add(relative(root, decodeURIComponent(path)))
      }
    }
  }
  return [...found].sort()
}

/** The store entry (`node_modules/.pnpm/<entry>`) a path is in, or undefined. */
const storeEntry = (path) => {
  if (!path.startsWith(`${store}/`)) return undefined
  const entry = path.slice(store.length + 1).split("/")[0]
  return entry === undefined || entry === "" || entry === "node_modules" ? undefined : `${store}/${entry}`
}

/** The store entries an entry's packages link to (its dependencies). */
const dependenciesOf = (entry) => {
  const links = []
  const modulesDir = join(root, entry, "node_modules")
  const visit = (dir) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name)
      const stats = lstatSync(path)
      if (name.startsWith("@") && stats.isDirectory()) visit(path)
      else if (stats.isSymbolicLink()) {
        const target = storeEntry(relative(root, resolve(dirname(path), readlinkSync(path))))
        if (target !== undefined) links.push(target)
      }
    }
  }
  if (existsSync(modulesDir)) visit(modulesDir)
  return links
}

/** What the runtime needs, relative to the root: folders and files, each copied whole. */
export const runtimeEntries = () => {
  const named = namedPaths()
  const entries = new Set()
  const queue = named.map(storeEntry).filter((entry) => entry !== undefined)
  const sources = new Set(
    named.flatMap((path) => {
      const match = /^(packages\/[^/]+)\//.exec(path)
      return match === null ? [] : [match[1]]
    })
  )
  // A workspace module named by path resolves packages from its own folder (`createRequire`, as
  // the PGlite client does): its production dependencies' links, and what they link to.
  const links = [...sources].flatMap((pkg) => {
    const manifest = JSON.parse(readFileSync(join(root, pkg, "package.json"), "utf8"))
    return Object.keys(manifest.dependencies ?? {})
      .filter((name) => !name.startsWith("@verbatim/"))
      .map((name) => `${pkg}/node_modules/${name}`)
      .filter((link) => existsSync(join(root, link)))
  })
  for (const link of links) {
    const target = storeEntry(
      relative(root, resolve(dirname(join(root, link)), readlinkSync(join(root, link))))
    )
    if (target !== undefined) queue.push(target)
  }
  while (queue.length > 0) {
    const entry = queue.pop()
    if (entries.has(entry)) continue
    entries.add(entry)
    queue.push(...dependenciesOf(entry))
  }
  // The whole module folder (its assets may sit beside src: the demo catalogue is in catalogue/).
  const packageFiles = [...sources].sort()
  return ["package.json", ...bundleDirs, ...packageFiles, ...links.sort(), ...[...entries].sort()]
}

/**
 * What is copied of a workspace module's folder: no tests, build info or build output, and not its
 * node_modules (the links it needs are entries of their own).
 */
const wanted = (entry) => (source) =>
  !/^packages[/\\][^/\\]+$/.test(entry) ||
  (!/(\.test\.ts|\.tsbuildinfo)$/.test(source) &&
    !/^packages[/\\][^/\\]+[/\\](test|node_modules|dist)([/\\]|$)/.test(relative(root, source)))

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const dest = process.argv[2]
  if (dest === undefined) {
    process.stderr.write("usage: node scripts/assemble-runtime.mjs <dest>\n")
    process.exit(2)
  }
  const target = resolve(dest)
  rmSync(target, { recursive: true, force: true })
  for (const entry of runtimeEntries()) {
    mkdirSync(dirname(join(target, entry)), { recursive: true })
    cpSync(join(root, entry), join(target, entry), {
      recursive: true,
      verbatimSymlinks: true,
      filter: wanted(entry)
    })
  }
  process.stdout.write(`assembled the runtime in ${target}\n`)
}
