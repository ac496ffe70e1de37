package explorer

import (
	"net"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Metrics are the search's Prometheus metrics. They observe the search from
// the host side; nothing in a universe reads them.
type Metrics struct {
	reg          *prometheus.Registry
	universes    prometheus.Counter
	failures     prometheus.Counter
	instructions prometheus.Counter
	edges        prometheus.Gauge
	fill         prometheus.Gauge
	pairs        prometheus.Gauge
	preemptions  prometheus.Counter
	corpus       prometheus.Gauge
	duration     prometheus.Histogram
	outcomes     *prometheus.CounterVec
}

// NewMetrics registers the metrics in a registry of their own.
func NewMetrics() *Metrics {
	m := &Metrics{reg: prometheus.NewRegistry()}
	m.universes = prometheus.NewCounter(prometheus.CounterOpts{Name: "everett_universes_total", Help: "Universes run to their end."})
	m.failures = prometheus.NewCounter(prometheus.CounterOpts{Name: "everett_failures_total", Help: "Distinct failures found."})
	m.instructions = prometheus.NewCounter(prometheus.CounterOpts{Name: "everett_instructions_total", Help: "Guest instructions executed, all universes."})
	m.edges = prometheus.NewGauge(prometheus.GaugeOpts{Name: "everett_coverage_edges", Help: "Guest control-flow edges covered."})
	m.fill = prometheus.NewGauge(prometheus.GaugeOpts{Name: "everett_coverage_map_fill", Help: "Fraction of the edge map's slots in use."})
	m.pairs = prometheus.NewGauge(prometheus.GaugeOpts{Name: "everett_interleaving_pairs", Help: "Distinct (first pc, second pc) pairs of communication events between harts."})
	m.preemptions = prometheus.NewCounter(prometheus.CounterOpts{Name: "everett_preemptions_total", Help: "Preemptions at communication events, all universes."})
	m.corpus = prometheus.NewGauge(prometheus.GaugeOpts{Name: "everett_corpus_snapshots", Help: "Snapshots in the corpus."})
	m.duration = prometheus.NewHistogram(prometheus.HistogramOpts{
		Name: "everett_universe_seconds", Help: "Host time per universe.",
		Buckets: prometheus.ExponentialBuckets(0.001, 4, 10),
	})
	m.outcomes = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "everett_universe_outcomes_total", Help: "Universes by outcome."}, []string{"outcome"})
	m.reg.MustRegister(m.universes, m.failures, m.instructions, m.edges, m.fill, m.pairs, m.preemptions, m.corpus, m.duration, m.outcomes)
	return m
}

// Registry returns the registry (tests gather from it).
func (m *Metrics) Registry() *prometheus.Registry { return m.reg }

func (m *Metrics) universe(u *Universe, d time.Duration) {
	m.universes.Inc()
	m.instructions.Add(float64(u.icountEnd))
	m.preemptions.Add(float64(u.preemptions))
	m.duration.Observe(d.Seconds())
	o := "pass"
	if u.failure != nil {
		o = u.failure.Kind
	}
	m.outcomes.WithLabelValues(o).Inc()
}

func (m *Metrics) failure() { m.failures.Inc() }

func (m *Metrics) coverage(edges int, fill float64, pairs, corpus int) {
	m.edges.Set(float64(edges))
	m.fill.Set(fill)
	m.pairs.Set(float64(pairs))
	m.corpus.Set(float64(corpus))
}

// Serve serves /metrics on addr until the returned function is called. It
// returns the address actually listened on (addr may end in :0).
func (m *Metrics) Serve(addr string) (string, func(), error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return "", nil, err
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{}))
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	return ln.Addr().String(), func() { _ = srv.Close() }, nil
}
