/**
 * The OpenTelemetry SDK's tracer exporting over OTLP/HTTP: imported by `tracingFor` only when an
 * OTLP endpoint is set, so a server without tracing never loads the SDK.
 */
import * as NodeSdk from "@effect/opentelemetry/NodeSdk"
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http"
import { BatchSpanProcessor } from "@opentelemetry/sdk-trace-base"
import { Layer } from "effect"

/** Spans exported in batches, the resource named `serviceName`. */
export const otlpTracing = (serviceName: string): Layer.Layer<never> =>
  Layer.discard(
    NodeSdk.layer(() => ({
      resource: { serviceName },
      // The exporter reads the OTLP endpoint, headers and timeout from the standard variables.
      spanProcessor: new BatchSpanProcessor(new OTLPTraceExporter())
    }))
  )
