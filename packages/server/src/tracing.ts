import { context, propagation, trace } from '@opentelemetry/api';

/**
 * Registers an OpenTelemetry tracer provider that sends spans over OTLP/HTTP, configured by the
 * standard variables (`OTEL_EXPORTER_OTLP_ENDPOINT`, `OTEL_EXPORTER_OTLP_HEADERS`, ...), with the
 * context carried across async calls and W3C trace context propagated. Resolves with its shutdown,
 * which flushes the spans still buffered. The SDK's packages are loaded here, so a host without
 * tracing does not hold them.
 */
export async function startTracing(): Promise<() => Promise<void>> {
  const [{ AsyncLocalStorageContextManager }, { W3CTraceContextPropagator }, { OTLPTraceExporter }, resources, sdk] =
    await Promise.all([
      import('@opentelemetry/context-async-hooks'),
      import('@opentelemetry/core'),
      import('@opentelemetry/exporter-trace-otlp-http'),
      import('@opentelemetry/resources'),
      import('@opentelemetry/sdk-trace'),
    ]);
  const provider = new sdk.TracerProvider({
    resource: resources.resourceFromAttributes({ 'service.name': process.env.OTEL_SERVICE_NAME ?? 'agenthost' }),
    spanProcessors: [new sdk.BatchSpanProcessor({ exporter: new OTLPTraceExporter() })],
  });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(provider);
  return () => provider.shutdown();
}
