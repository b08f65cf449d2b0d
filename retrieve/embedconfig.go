package retrieve

import "errors"

// OpenAIBaseURL is the endpoint EmbedConfig uses when it has an API key
// and no base URL.
const OpenAIBaseURL = "https://api.openai.com/v1"

// ErrNoEmbedEndpoint: an embeddings model was named without an endpoint
// (no base URL, and no API key that would imply OpenAI's).
var ErrNoEmbedEndpoint = errors.New("an embeddings model needs an endpoint")

// EmbedConfig names an OpenAI-compatible embeddings model and where it is
// served, as a front end reads it from its settings.
type EmbedConfig struct {
	Model   string // "" for none: lexical search only
	BaseURL string // default OpenAIBaseURL when APIKey is set
	APIKey  string
	// InputTypeField is HTTPEmbedder.InputTypeField.
	InputTypeField string
}

// Embedder is the HTTPEmbedder of c, or nil (and no error) when c names no
// model; a model without an endpoint is ErrNoEmbedEndpoint.
func (c EmbedConfig) Embedder() (Embedder, error) {
	if c.Model == "" {
		return nil, nil
	}
	if c.BaseURL == "" && c.APIKey != "" {
		c.BaseURL = OpenAIBaseURL
	}
	if c.BaseURL == "" {
		return nil, ErrNoEmbedEndpoint
	}
	return &HTTPEmbedder{BaseURL: c.BaseURL, APIKey: c.APIKey, Name: c.Model, InputTypeField: c.InputTypeField}, nil
}
