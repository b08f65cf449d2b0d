package serve

import (
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/relayhq/relay/internal/egress"
)

// Metrics are the bot's Prometheus metrics, on a registry of their own so
// that tests (and two servers in one process) do not collide.
type Metrics struct {
	Registry         *prometheus.Registry
	Deliveries       *prometheus.CounterVec // source, result
	JobsEnqueued     prometheus.Counter
	JobsInProgress   prometheus.Gauge
	JobsCompleted    *prometheus.CounterVec // outcome
	JobDuration      prometheus.Histogram
	QueueWait        prometheus.Histogram
	IndexDuration    prometheus.Histogram
	LLMTokens        *prometheus.CounterVec // stage
	LLMCost          prometheus.Counter
	AcceptDurationMS prometheus.Histogram
	JobsReclaimed    prometheus.Counter
	BudgetDeferred   prometheus.Counter
	DryRunPosts      *prometheus.CounterVec // source, kind: what dry_run kept from being posted
}

// Delivery results of relay_webhook_deliveries_total.
const (
	ResultAccepted     = "accepted"      // a new job was enqueued
	ResultCoalesced    = "coalesced"     // joined the queued or running job
	ResultDuplicate    = "duplicate"     // delivery id seen before
	ResultIgnored      = "ignored"       // well-formed, triggers nothing
	ResultBadSignature = "bad_signature" // 401
	ResultMalformed    = "malformed"     // 400
	ResultTooLarge     = "too_large"     // 413
	ResultError        = "error"         // 503: the queue could not take it
	ResultUnsigned     = "unsigned"      // 401 before the body was read: no signature header
	ResultBusy         = "busy"          // 503: the intake's byte budget is full; Retry-After
	ResultRateLimited  = "rate_limited"  // 429: the author's or repository's job rate; Retry-After
	ResultForbidden    = "forbidden"     // a command from an account without an allowed role or group
	ResultInstallation = "installation"  // a GitHub App installation event changed the served repositories
)

// Job outcomes of relay_jobs_completed_total.
const (
	OutcomeDone     = "done"     // the report is posted
	OutcomeRetry    = "retry"    // a transient failure: the job runs again
	OutcomeFailed   = "failed"   // finally failed; the comment says so below the last report
	OutcomeHandback = "handback" // interrupted by shutdown: back to the queue
)

// NewMetrics registers the bot's metrics and the Go runtime's.
func NewMetrics() *Metrics {
	r := prometheus.NewRegistry()
	r.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	m := &Metrics{
		Registry: r,
		Deliveries: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "relay_webhook_deliveries_total", Help: "Webhook deliveries by source and result.",
		}, []string{"source", "result"}),
		JobsEnqueued: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "relay_jobs_enqueued_total", Help: "Scope jobs enqueued (coalesced triggers and duplicates excluded).",
		}),
		JobsInProgress: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "relay_jobs_in_progress", Help: "Scope jobs running in this process.",
		}),
		JobsCompleted: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "relay_jobs_completed_total", Help: "Job attempts by outcome: done, retry, failed, handback.",
		}, []string{"outcome"}),
		JobDuration: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "relay_job_duration_seconds", Help: "Duration of one job attempt.",
			Buckets: prometheus.ExponentialBuckets(0.1, 2, 16),
		}),
		QueueWait: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "relay_queue_wait_seconds", Help: "Time from a job being available to a worker starting it.",
			Buckets: prometheus.ExponentialBuckets(0.005, 2, 18),
		}),
		IndexDuration: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "relay_index_duration_seconds", Help: "Duration of a job's incremental index step.",
			Buckets: prometheus.ExponentialBuckets(0.01, 2, 16),
		}),
		LLMTokens: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "relay_llm_tokens_total", Help: "Model tokens used, by stage (planner, retriever, gap).",
		}, []string{"stage"}),
		LLMCost: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "relay_llm_cost_total", Help: "Model cost by the configured prices.",
		}),
		AcceptDurationMS: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "relay_webhook_accept_seconds", Help: "Time to answer a webhook delivery.",
			Buckets: prometheus.ExponentialBuckets(0.0005, 2, 16),
		}),
		JobsReclaimed: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "relay_jobs_reclaimed_total", Help: "Running jobs of dead worker processes taken back by the queue.",
		}),
		BudgetDeferred: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "relay_jobs_budget_deferred_total", Help: "Job starts put off because limits.cost_per_hour or cost_per_day was reached.",
		}),
	}
	m.DryRunPosts = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "relay_dry_run_posts_total", Help: "Comments dry_run logged instead of posting, by source and kind (placeholder, report, note).",
	}, []string{"source", "kind"})
	r.MustRegister(m.JobsReclaimed, m.BudgetDeferred, m.DryRunPosts)
	r.MustRegister(m.Deliveries, m.JobsEnqueued, m.JobsInProgress, m.JobsCompleted, m.JobDuration,
		m.QueueWait, m.IndexDuration, m.LLMTokens, m.LLMCost, m.AcceptDurationMS, redactedCollector{})
	// Every series exists from the start, so dashboards and rate() see zeros
	// rather than gaps.
	for _, src := range []string{"github", "gitlab", "jira"} {
		for _, r := range []string{ResultAccepted, ResultCoalesced, ResultDuplicate, ResultIgnored, ResultBadSignature, ResultMalformed, ResultTooLarge, ResultError, ResultUnsigned, ResultBusy, ResultRateLimited, ResultForbidden} {
			m.Deliveries.WithLabelValues(src, r)
		}
	}
	for _, o := range []string{OutcomeDone, OutcomeRetry, OutcomeFailed, OutcomeHandback} {
		m.JobsCompleted.WithLabelValues(o)
	}
	for _, st := range []string{"planner", "retriever", "gap"} {
		m.LLMTokens.WithLabelValues(st)
	}
	return m
}

// redactedDesc is relay_secrets_redacted_total: values the egress filter
// (internal/egress) replaced in this process — in comments, model
// requests, transcripts, logs — by gitleaks rule.
var redactedDesc = prometheus.NewDesc("relay_secrets_redacted_total",
	"Secrets redacted from text leaving relay (comments, model requests, transcripts, logs), by scanner rule.", []string{"rule"}, nil)

// redactedCollector reads the process-wide filter's counts at each scrape.
type redactedCollector struct{}

func (redactedCollector) Describe(ch chan<- *prometheus.Desc) { ch <- redactedDesc }

func (redactedCollector) Collect(ch chan<- prometheus.Metric) {
	per, _ := egress.Default().Stats()
	for rule, n := range per {
		ch <- prometheus.MustNewConstMetric(redactedDesc, prometheus.CounterValue, float64(n), rule)
	}
}
