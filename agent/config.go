package agent

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"github.com/relayhq/relay/internal/redact"
	"github.com/relayhq/relay/tools"
)

// Defaults of a [Config], applied by [Config.SetDefaults]. The bounds of a
// run ([DefaultMaxTokens], [DefaultMaxRetrievers],
// [DefaultMaxToolCallsPerTurn]) and the retention of its transcripts
// ([DefaultRunsKeep], [DefaultRunsMaxBytes]) are defaults of [Options] too.
const (
	// DefaultModel is the model of every stage on api.openai.com (no base
	// URL) when none is named; another endpoint has no default model.
	DefaultModel            = "gpt-4o-mini"
	DefaultParallel         = 4
	DefaultPlannerSteps     = 6
	DefaultRetrieverSteps   = 20
	DefaultRetrieverTimeout = 5 * time.Minute
	DefaultRequestTimeout   = 3 * time.Minute
	DefaultRetries          = 4
)

// NoLimit in Config.MaxTokens, RunsKeep or RunsMaxBytes lifts that limit.
const NoLimit = -1

// ErrNoModel is returned (wrapped) when a model endpoint other than
// api.openai.com is configured without a model.
var ErrNoModel = errors.New("no model configured")

// ErrNoPrices is returned (wrapped, in a [*ConfigError] on MaxCost) when a
// cost budget is set without prices to count it by.
var ErrNoPrices = errors.New("needs prices to count the cost by")

// ConfigError says that one field of a [Config] has a value it cannot take.
// Field is the Go name of the field ("Parallel", "RunsKeep"); callers map
// it to their own name for the setting (a flag, a configuration key).
type ConfigError struct {
	Field  string
	Value  string
	Reason string
	Err    error // a sentinel such as ErrNoPrices, or nil
}

func (e *ConfigError) Error() string {
	return fmt.Sprintf("agent config: %s %s: %s", e.Field, e.Value, e.Reason)
}

func (e *ConfigError) Unwrap() error { return e.Err }

// Config is every setting of the agent runtime that a user chooses: the
// model endpoint, the model of each stage, prices, budgets and limits. The
// CLI fills it from flags and environment, the bot from its configuration
// file; [NewFromConfig] builds a [Runner] from it. Zero fields take the
// defaults [Config.SetDefaults] gives them.
type Config struct {
	BaseURL string // OpenAI-compatible endpoint; "" means api.openai.com
	APIKey  string
	// Model is the model of every stage Models does not name; on
	// api.openai.com it defaults to DefaultModel.
	Model  string
	Models Models
	Prices map[string]Price // by model name, per million tokens

	MaxTokens int64   // tokens of one run; default DefaultMaxTokens, NoLimit for none
	MaxCost   float64 // cost of one run by Prices; 0 for no limit

	Parallel            int           // retrievers running at once; default DefaultParallel
	MaxRetrievers       int           // retrievers one run starts; default DefaultMaxRetrievers
	MaxToolCallsPerTurn int           // tool calls of one model turn that run; default DefaultMaxToolCallsPerTurn
	PlannerSteps        int           // planner turns; default DefaultPlannerSteps
	RetrieverSteps      int           // retriever turns before its report is asked for; default DefaultRetrieverSteps
	RetrieverTimeout    time.Duration // hard deadline of one retriever; default DefaultRetrieverTimeout
	RequestTimeout      time.Duration // one model request, before a retry; default DefaultRequestTimeout
	Timeout             time.Duration // the whole run (see [Config.RunContext]); 0 for none
	Retries             int           // attempts per model request; default DefaultRetries
	NoJSONMode          bool          // do not send response_format json_object

	NoTranscript bool  // keep no transcript of a run
	RunsKeep     int   // transcripts kept; default DefaultRunsKeep, NoLimit for none
	RunsMaxBytes int64 // bytes of transcripts kept; default DefaultRunsMaxBytes, NoLimit for none
}

// SetDefaults gives every zero field its default. It is the one place the
// defaults of the agent runtime are written: the CLI's flag defaults and
// the bot's are read from a Config it has filled.
func (c *Config) SetDefaults() {
	def := func(p *int, v int) {
		if *p == 0 {
			*p = v
		}
	}
	defDur := func(p *time.Duration, v time.Duration) {
		if *p == 0 {
			*p = v
		}
	}
	c.Model, c.Models = c.models()
	if c.MaxTokens == 0 {
		c.MaxTokens = DefaultMaxTokens
	}
	def(&c.Parallel, DefaultParallel)
	def(&c.MaxRetrievers, DefaultMaxRetrievers)
	def(&c.MaxToolCallsPerTurn, DefaultMaxToolCallsPerTurn)
	def(&c.PlannerSteps, DefaultPlannerSteps)
	def(&c.RetrieverSteps, DefaultRetrieverSteps)
	def(&c.Retries, DefaultRetries)
	def(&c.RunsKeep, DefaultRunsKeep)
	defDur(&c.RetrieverTimeout, DefaultRetrieverTimeout)
	defDur(&c.RequestTimeout, DefaultRequestTimeout)
	if c.RunsMaxBytes == 0 {
		c.RunsMaxBytes = DefaultRunsMaxBytes
	}
	if c.Prices == nil {
		c.Prices = map[string]Price{}
	}
}

// models returns the model of every stage as c will use it: the stage's
// own, else Model, else DefaultModel on api.openai.com.
func (c Config) models() (string, Models) {
	model := c.Model
	if model == "" && c.BaseURL == "" {
		model = DefaultModel
	}
	or := func(s string) string {
		if s == "" {
			return model
		}
		return s
	}
	return model, Models{Planner: or(c.Models.Planner), Retriever: or(c.Models.Retriever), Gap: or(c.Models.Gap)}
}

// Validate reports every field of c that cannot be used, each as a
// [*ConfigError] (joined), and a missing model as ErrNoModel (wrapped). A
// zero where SetDefaults gives a default is refused, so that a caller
// whose zero is a user's mistake (a command line's --parallel 0) may
// validate before SetDefaults; a configuration file's zeros mean "the
// default", and its caller runs SetDefaults first. The models are checked
// as SetDefaults resolves them, before or after it.
func (c Config) Validate() error {
	var errs []error
	_, m := c.models()
	if m.Planner == "" || m.Retriever == "" || m.Gap == "" {
		errs = append(errs, fmt.Errorf("%w for endpoint %s", ErrNoModel, redact.URL(c.BaseURL)))
	}
	atLeast1 := []struct {
		field string
		n     int
	}{
		{"Parallel", c.Parallel}, {"PlannerSteps", c.PlannerSteps}, {"RetrieverSteps", c.RetrieverSteps},
		{"Retries", c.Retries}, {"MaxRetrievers", c.MaxRetrievers}, {"MaxToolCallsPerTurn", c.MaxToolCallsPerTurn},
	}
	for _, f := range atLeast1 {
		if f.n < 1 {
			errs = append(errs, &ConfigError{Field: f.field, Value: strconv.Itoa(f.n), Reason: "must be at least 1"})
		}
	}
	if c.RunsKeep == 0 {
		errs = append(errs, &ConfigError{Field: "RunsKeep", Value: "0", Reason: "must be positive, or -1 for no limit"})
	}
	if c.RunsMaxBytes == 0 {
		errs = append(errs, &ConfigError{Field: "RunsMaxBytes", Value: "0", Reason: "must be positive, or -1 for no limit"})
	}
	for _, d := range []struct {
		field string
		d     time.Duration
	}{{"RequestTimeout", c.RequestTimeout}, {"RetrieverTimeout", c.RetrieverTimeout}} {
		if d.d <= 0 {
			errs = append(errs, &ConfigError{Field: d.field, Value: d.d.String(), Reason: "must be positive"})
		}
	}
	if c.Timeout < 0 {
		errs = append(errs, &ConfigError{Field: "Timeout", Value: c.Timeout.String(), Reason: "must be positive, or 0 for none"})
	}
	if c.MaxTokens < 0 && c.MaxTokens != NoLimit || c.MaxTokens == 0 {
		errs = append(errs, &ConfigError{Field: "MaxTokens", Value: strconv.FormatInt(c.MaxTokens, 10), Reason: "must be positive, or -1 for no limit"})
	}
	switch {
	case c.MaxCost < 0:
		errs = append(errs, &ConfigError{Field: "MaxCost", Value: strconv.FormatFloat(c.MaxCost, 'g', -1, 64), Reason: "must not be negative"})
	case c.MaxCost > 0 && len(c.Prices) == 0:
		errs = append(errs, &ConfigError{Field: "MaxCost", Value: strconv.FormatFloat(c.MaxCost, 'g', -1, 64), Reason: ErrNoPrices.Error(), Err: ErrNoPrices})
	}
	return errors.Join(errs...)
}

// Deps are what a Runner built by [NewFromConfig] needs besides its
// settings.
type Deps struct {
	Tools    *tools.Registry // retriever tools; only read-only ones are offered
	Root     string          // repository root
	RunsDir  string          // where transcripts go; "" (or Config.NoTranscript) keeps none
	Log      *slog.Logger    // default discards
	Progress func(Progress)  // may be nil
}

// NewFromConfig builds the agent runtime of c: a go-openai client for the
// endpoint (one HTTP client with c.RequestTimeout per request), retried
// c.Retries times, every request passing the egress filter before it is
// sent or retried; and a Runner over it with c's models, prices, budgets
// and limits. c's zero fields take their defaults first; an invalid c is
// refused with Validate's error. [Runner.Close] releases the HTTP client's
// idle connections.
func NewFromConfig(c Config, d Deps) (*Runner, error) {
	c.SetDefaults()
	if err := c.Validate(); err != nil {
		return nil, err
	}
	hc := &http.Client{Timeout: c.RequestTimeout}
	client := NewEgressClient(NewRetryClient(NewOpenAIClient(c.BaseURL, c.APIKey, hc), RetryOptions{MaxAttempts: c.Retries, Log: d.Log}), nil)
	runsDir := d.RunsDir
	if c.NoTranscript {
		runsDir = ""
	}
	r, err := New(Options{
		Client:              client,
		Tools:               d.Tools,
		Root:                d.Root,
		Models:              c.Models,
		RetrieverSoftCap:    c.RetrieverSteps,
		RetrieverTimeout:    c.RetrieverTimeout,
		PlannerMaxSteps:     c.PlannerSteps,
		Parallel:            c.Parallel,
		NoJSONMode:          c.NoJSONMode,
		Budget:              Budget{MaxTokens: c.MaxTokens, MaxCost: c.MaxCost},
		Prices:              c.Prices,
		RunsDir:             runsDir,
		RunsKeep:            c.RunsKeep,
		RunsMaxBytes:        c.RunsMaxBytes,
		Log:                 d.Log,
		Progress:            d.Progress,
		MaxRetrievers:       c.MaxRetrievers,
		MaxToolCallsPerTurn: c.MaxToolCallsPerTurn,
	})
	if err != nil {
		hc.CloseIdleConnections()
		return nil, err
	}
	r.http = hc
	return r, nil
}
