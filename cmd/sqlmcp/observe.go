package main

import (
	"context"
	"flag"
	"net/url"
	"strings"

	"github.com/rs/zerolog"

	"github.com/sqlmcp/sqlmcp/internal/telemetry"
	"github.com/sqlmcp/sqlmcp/sources"
)

// serve's traces and metrics: their flags, and the telemetry they set up.

// defineObserve defines the traces' and metrics' flags on cfg.
func defineObserve(fs *flag.FlagSet, cfg *config) {
	fs.BoolVar(&cfg.metricsOpen, "metrics-open", false, "HTTP: serve /metrics without the bearer token, for a scraper that cannot send one; the Host and Origin checks stay (SQLMCP_METRICS_OPEN)")
	fs.StringVar(&cfg.otlpEndpoint, "otlp-endpoint", "", "send a trace of every MCP request over OTLP/HTTP to this collector, e.g. http://localhost:4318 (/v1/traces is added to a URL without a path); default: OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, else OTEL_EXPORTER_OTLP_ENDPOINT (SQLMCP_OTLP_ENDPOINT)")
}

// tracesURL is where spans are posted: --otlp-endpoint, else the
// OpenTelemetry variables as the OTLP specification reads them (the
// traces one as it is, the general one with /v1/traces added); "" for
// no traces.
func tracesURL(endpoint string, getenv func(string) string) string {
	if endpoint != "" {
		return withTracesPath(endpoint, false)
	}
	if u := getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"); u != "" {
		return u
	}
	return withTracesPath(getenv("OTEL_EXPORTER_OTLP_ENDPOINT"), true)
}

// withTracesPath adds /v1/traces to the path of base, always or only when
// it has none; a base that is not a URL with a host is left for the check
// to refuse.
func withTracesPath(base string, always bool) string {
	u, err := url.Parse(base)
	if err != nil || u.Host == "" || !always && u.Path != "" && u.Path != "/" {
		return base
	}
	return strings.TrimSuffix(base, "/") + "/v1/traces"
}

// otlpHeaders are the headers every export request carries, from
// OTEL_EXPORTER_OTLP_TRACES_HEADERS, else OTEL_EXPORTER_OTLP_HEADERS:
// key=value pairs, comma-separated, values URL-encoded.
func otlpHeaders(getenv func(string) string) (map[string]string, error) {
	name := "OTEL_EXPORTER_OTLP_TRACES_HEADERS"
	list := getenv(name)
	if list == "" {
		name = "OTEL_EXPORTER_OTLP_HEADERS"
		list = getenv(name)
	}
	headers := map[string]string{}
	for _, pair := range splitList(list) {
		k, v, ok := strings.Cut(pair, "=")
		value, err := url.QueryUnescape(strings.TrimSpace(v))
		if k = strings.TrimSpace(k); !ok || k == "" || err != nil {
			return nil, usagef("%s: %q is not key=value (values URL-encoded), e.g. api-key=secret", name, pair)
		}
		headers[k] = value
	}
	return headers, nil
}

// startTelemetry sets up the metrics (for HTTP's /metrics) and the
// traces (when an endpoint is set). The caller shuts it down.
func startTelemetry(cfg *config, set *sources.Set, log zerolog.Logger) (*telemetry.Telemetry, error) {
	tel, err := telemetry.New(&telemetry.Options{
		Metrics: cfg.http != "", Sources: set, TracesURL: cfg.tracesURL, Headers: cfg.otlpHeaders, Version: buildVersion(), Logger: log,
	})
	if err != nil {
		return nil, usageError{err}
	}
	return tel, nil
}

// stopTelemetry sends the last spans.
func stopTelemetry(ctx context.Context, tel *telemetry.Telemetry, log zerolog.Logger) {
	if err := tel.Shutdown(ctx); err != nil {
		log.Warn().Str("event", "otlp_error").Str("error", err.Error()).Send()
	}
}
