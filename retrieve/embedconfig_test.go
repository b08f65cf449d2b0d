package retrieve

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestEmbedConfig(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		c    EmbedConfig
		want Embedder
		err  error
	}{
		{"no model", EmbedConfig{BaseURL: "http://e/v1", APIKey: "k"}, nil, nil},
		{"endpoint", EmbedConfig{Model: "m", BaseURL: "http://e/v1", InputTypeField: "input_type"},
			&HTTPEmbedder{BaseURL: "http://e/v1", Name: "m", InputTypeField: "input_type"}, nil},
		{"key implies OpenAI", EmbedConfig{Model: "m", APIKey: "k"}, &HTTPEmbedder{BaseURL: OpenAIBaseURL, APIKey: "k", Name: "m"}, nil},
		{"no endpoint", EmbedConfig{Model: "m"}, nil, ErrNoEmbedEndpoint},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.c.Embedder()
			if !errors.Is(err, tc.err) || (err == nil) != (tc.err == nil) {
				t.Fatalf("error = %v, want %v", err, tc.err)
			}
			if tc.want == nil {
				if got != nil {
					t.Errorf("embedder = %#v, want none", got)
				}
				return
			}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(HTTPEmbedder{})); diff != "" {
				t.Errorf("embedder (-want +got):\n%s", diff)
			}
		})
	}
}
