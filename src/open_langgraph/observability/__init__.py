"""What an operator watches: Prometheus metrics, run logs, Langfuse and OpenTelemetry traces.

Each part has its own module and is off or nearly free unless configured
(docs/observability.md): `metrics` (always on, a counter increment per event), `logs`
(`--log-format json`), `langfuse` (`LANGFUSE_LOGGING=true`) and `otel`
(`OTEL_EXPORTER_OTLP_ENDPOINT`), both imported only when asked for. `runs` ties them to a
run's execution.
"""
