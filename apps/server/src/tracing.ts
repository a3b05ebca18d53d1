/**
 * OpenTelemetry tracing, switched on by the standard OTLP settings: with `OTEL_EXPORTER_OTLP_ENDPOINT`
 * (or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) set, every request's span (`http.server ...`), the use
 * cases' and repositories' spans (`verbatim.db.Accounts.findByKeyHash`) and the SQL statements'
 * (`sql.execute`) are exported over OTLP/HTTP, in batches (`OTEL_BSP_*`), named
 * `OTEL_SERVICE_NAME` (default `verbatim-server`). Unset: nothing is exported, the SDK is not
 * loaded, and no span is made: spans that go nowhere were work on every request (the HTTP server's
 * span parsed the URL and copied the headers into attributes; each span read the clock and carried
 * attributes), so Effect's tracer is switched off (`withSpan` makes a no-op span) and the HTTP
 * server's span is skipped.
 */
import { HttpMiddleware } from "@effect/platform"
import { Config, Effect, Layer, Option } from "effect"

export interface TracingSettings {
  /** Where traces go; `None`: tracing is off. */
  readonly endpoint: Option.Option<string>
  readonly serviceName: string
}

const nonEmpty = (name: string) =>
  Config.option(Config.string(name)).pipe(Config.map(Option.filter((value) => value.trim() !== "")))

export const TracingConfig: Config.Config<TracingSettings> = Config.all({
  traces: nonEmpty("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"),
  all: nonEmpty("OTEL_EXPORTER_OTLP_ENDPOINT"),
  serviceName: Config.string("OTEL_SERVICE_NAME").pipe(Config.withDefault("verbatim-server"))
}).pipe(
  Config.map(({ traces, all, serviceName }) => ({ endpoint: Option.orElse(traces, () => all), serviceName }))
)

/** No spans: Effect's tracer off, and no span for each HTTP request. */
export const tracingOff: Layer.Layer<never> = Layer.merge(
  Layer.setTracerEnabled(false),
  Layer.scopedDiscard(Effect.locallyScoped(HttpMiddleware.currentTracerDisabledWhen, () => true))
)

/**
 * The tracer of the settings: OTLP/HTTP export when an endpoint is set (the SDK, `./tracing-sdk.js`,
 * is imported only then), else `tracingOff`.
 */
export const tracingFor = (settings: TracingSettings): Layer.Layer<never> =>
  Option.isNone(settings.endpoint)
    ? tracingOff
    : Layer.unwrapEffect(
        Effect.promise(() => import("./tracing-sdk.js")).pipe(
          Effect.map(({ otlpTracing }) => otlpTracing(settings.serviceName))
        )
      )
