package retrieve

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"strings"
	"time"

	"github.com/relayhq/relay/internal/redact"
)

// InputType tells an embeddings provider whether a text is a query or a
// document; providers with asymmetric models (NVIDIA NIM, Voyage, Cohere-
// style servers) embed the two differently.
type InputType string

// Input types.
const (
	InputQuery    InputType = "query"
	InputDocument InputType = "document"
)

// Embedder turns texts into vectors. Implementations must be safe for
// concurrent use and return one vector per text, in order.
type Embedder interface {
	Embed(ctx context.Context, texts []string, typ InputType) ([][]float32, error)
	// Model names the model; a change of model invalidates cached vectors.
	Model() string
}

// ErrEmbedNotConfigured is returned by HTTPEmbedder.Embed when the
// embedder has no base URL or no model name.
var ErrEmbedNotConfigured = errors.New("embeddings need a base URL and a model")

// HTTPEmbedder calls an OpenAI-compatible POST {BaseURL}/embeddings endpoint
// (BaseURL usually ends in /v1).
type HTTPEmbedder struct {
	BaseURL string // e.g. https://api.openai.com/v1 or http://localhost:11434/v1
	APIKey  string // sent as a Bearer token when set
	Name    string // model name, e.g. text-embedding-3-small
	// InputTypeField, when set, is the request field that carries the input
	// type ("input_type" for NVIDIA NIM, Voyage, Cohere-compatible servers);
	// QueryValue/DocumentValue are the values sent ("query"/"passage" by
	// default). Plain OpenAI takes no such field: leave it empty.
	InputTypeField string
	QueryValue     string
	DocumentValue  string
	// QueryPrefix and DocumentPrefix are prepended to texts, for models that
	// expect instructions in the text itself (e5: "query: "/"passage: ").
	QueryPrefix    string
	DocumentPrefix string
	BatchSize      int // texts per request; default 64
	Client         *http.Client
}

// Model returns the model name.
func (e *HTTPEmbedder) Model() string { return e.Name }

// Embed embeds texts in batches of BatchSize.
func (e *HTTPEmbedder) Embed(ctx context.Context, texts []string, typ InputType) ([][]float32, error) {
	if e.BaseURL == "" || e.Name == "" {
		return nil, ErrEmbedNotConfigured
	}
	bs := e.BatchSize
	if bs <= 0 {
		bs = 64
	}
	out := make([][]float32, 0, len(texts))
	for i := 0; i < len(texts); i += bs {
		vs, err := e.batch(ctx, texts[i:min(i+bs, len(texts))], typ)
		if err != nil {
			return nil, err
		}
		out = append(out, vs...)
	}
	return out, nil
}

func (e *HTTPEmbedder) batch(ctx context.Context, texts []string, typ InputType) ([][]float32, error) {
	prefix := e.DocumentPrefix
	if typ == InputQuery {
		prefix = e.QueryPrefix
	}
	in := make([]string, len(texts))
	for i, t := range texts {
		in[i] = prefix + t
	}
	body := map[string]any{"model": e.Name, "input": in, "encoding_format": "float"}
	if e.InputTypeField != "" {
		v := e.DocumentValue
		if v == "" {
			v = "passage"
		}
		if typ == InputQuery {
			v = e.QueryValue
			if v == "" {
				v = "query"
			}
		}
		body[e.InputTypeField] = v
	}
	data, err := json.Marshal(body)
	if err != nil {
		return nil, err
	}
	url := strings.TrimSuffix(e.BaseURL, "/") + "/embeddings"
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(data))
	if err != nil {
		return nil, redact.Error(fmt.Errorf("embeddings request: %w", err))
	}
	req.Header.Set("Content-Type", "application/json")
	if e.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+e.APIKey)
	}
	c := e.Client
	if c == nil {
		c = &http.Client{Timeout: 2 * time.Minute}
	}
	resp, err := c.Do(req)
	if err != nil {
		return nil, redact.Error(fmt.Errorf("embeddings call to %s: %w", url, err))
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 256<<20))
	if err != nil {
		return nil, fmt.Errorf("read embeddings response: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		msg := strings.TrimSpace(string(raw))
		if len(msg) > 300 {
			msg = msg[:300] + "…"
		}
		return nil, fmt.Errorf("embeddings endpoint %s answered %s: %s", redact.URL(url), resp.Status, redact.Text(msg))
	}
	var r struct {
		Data []struct {
			Index     int       `json:"index"`
			Embedding []float32 `json:"embedding"`
		} `json:"data"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil, fmt.Errorf("decode embeddings response from %s: %w", redact.URL(url), err)
	}
	if len(r.Data) != len(texts) {
		return nil, fmt.Errorf("embeddings endpoint %s returned %d vectors for %d inputs", redact.URL(url), len(r.Data), len(texts))
	}
	out := make([][]float32, len(texts))
	for i, d := range r.Data {
		idx := d.Index
		if idx < 0 || idx >= len(texts) || out[idx] != nil {
			idx = i // servers that omit or repeat the index answer in order
		}
		out[idx] = normalize(d.Embedding)
	}
	return out, nil
}

// normalize scales v to unit length in place (cosine becomes a dot product).
func normalize(v []float32) []float32 {
	s := 0.0
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	if s == 0 {
		return v
	}
	inv := float32(1 / math.Sqrt(s))
	for i := range v {
		v[i] *= inv
	}
	return v
}

// dot is the inner product of equal-length vectors (0 otherwise), with
// four accumulators so the loop pipelines.
func dot(a, b []float32) float32 {
	if len(a) != len(b) {
		return 0
	}
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += a[i] * b[i]
		s1 += a[i+1] * b[i+1]
		s2 += a[i+2] * b[i+2]
		s3 += a[i+3] * b[i+3]
	}
	for ; i < len(a); i++ {
		s0 += a[i] * b[i]
	}
	return s0 + s1 + s2 + s3
}
