/**
 * OpenTelemetry tracing, switched on by the standard OTLP settings: with `OTEL_EXPORTER_OTLP_ENDPOINT`
 * (or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) set, every request's span (`http.server ...`), the use
 * cases' and repositories' spans (`verbatim.db.Accounts.findByKeyHash`) and the SQL statements'
 * (`sql.execute`) are exported over OTLP/HTTP, in batches (`OTEL_BSP_*`), named
 * `OTEL_SERVICE_NAME` (default `verbatim-server`). Unset: nothing is exported and the SDK is not
 * loaded; Effect's own spans cost what they cost before.
 */
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

/**
 * The tracer of the settings: OTLP/HTTP export when an endpoint is set (the SDK, `./tracing-sdk.js`,
 * is imported only then), else nothing.
 */
export const tracingFor = (settings: TracingSettings): Layer.Layer<never> =>
  Option.isNone(settings.endpoint)
    ? Layer.empty
    : Layer.unwrapEffect(
        Effect.promise(() => import("./tracing-sdk.js")).pipe(
          Effect.map(({ otlpTracing }) => otlpTracing(settings.serviceName))
        )
      )
