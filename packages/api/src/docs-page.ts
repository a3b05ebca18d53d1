/**
 * The API reference page (Scalar, its script bundled: no CDN), made at the first request for it.
 * The platform's page module holds Scalar's script (3.4 MB of JavaScript, held twice: in the module
 * and in the page made from it); imported with `import()`, it stays out of the process until someone
 * opens the page (the app bundles put it in a chunk of its own).
 */
import { HttpApi, HttpApiBuilder } from "@effect/platform"
import { Effect, Layer } from "effect"

type ScalarOptions = NonNullable<Parameters<typeof import("@effect/platform/HttpApiScalar").layer>[0]>

/** `HttpApiScalar.layer(options)`, its module loaded and its page made at the first GET of `path`. */
export const lazyScalarLayer = (options: ScalarOptions & { readonly path: `/${string}` }) =>
  HttpApiBuilder.Router.use((router) =>
    Effect.gen(function* () {
      const api = yield* HttpApi.Api
      // The platform's own page, on a router of its own; kept once made.
      const page = yield* Effect.cached(
        Effect.gen(function* () {
          const Scalar = yield* Effect.promise(() => import("@effect/platform/HttpApiScalar"))
          const routes = yield* Layer.build(
            Layer.merge(HttpApiBuilder.Router.Live, Scalar.layer(options)).pipe(
              Layer.provide(Layer.succeed(HttpApi.Api, api))
            )
          )
          return yield* HttpApiBuilder.Router.router.pipe(Effect.provide(routes))
        }).pipe(Effect.scoped)
      )
      yield* router.get(
        options.path,
        Effect.flatMap(page, (app) => app)
      )
    })
  )
