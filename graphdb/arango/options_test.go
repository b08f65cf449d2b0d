package arango

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/relayhq/relay/graphdb"
)

func TestOptionsValidate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		o    Options
		want string // "" means valid
	}{
		{"zero value", Options{}, ""},
		{"explicit", Options{LockTTL: 30 * time.Second, BatchSize: 500, MaxTransactionSize: 1 << 30}, ""},
		{"minimum ttl", Options{LockTTL: 3 * time.Second}, ""},
		{"negative ttl", Options{LockTTL: -time.Second}, "LockTTL -1s is negative"},
		{"short ttl", Options{LockTTL: time.Second}, "shorter than 3s"},
		{"negative batch", Options{BatchSize: -1}, "BatchSize -1 is negative"},
		{"huge batch", Options{BatchSize: 1_000_000}, "exceeds 100000"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.o.validate()
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("validate: %v, want nil", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("validate: %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

func TestOptionsDefaults(t *testing.T) {
	t.Parallel()
	o := Options{}.withDefaults()
	if o.LockTTL != DefaultLockTTL || o.BatchSize != DefaultBatchSize || o.Logger == nil || o.Now == nil || o.Holder == "" {
		t.Errorf("withDefaults() = %+v", o)
	}
	if o2 := (Options{}).withDefaults(); o2.Holder == o.Holder {
		t.Errorf("two stores got the same lease holder %q", o.Holder)
	}
	kept := Options{LockTTL: 10 * time.Second, BatchSize: 7, Holder: "h"}.withDefaults()
	if kept.LockTTL != 10*time.Second || kept.BatchSize != 7 || kept.Holder != "h" {
		t.Errorf("withDefaults overrode set options: %+v", kept)
	}
}

// TestOpenRejectsBadInput checks that Open reports bad options and URLs
// before it tries the network.
func TestOpenRejectsBadInput(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, url string
		o         Options
		want      string
	}{
		{"bad url", "http://localhost:8529/x", Options{}, "is not arangodb"},
		{"bad option", "arangodb://localhost/x", Options{BatchSize: -5}, "BatchSize -5"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := Open(t.Context(), tc.url, tc.o)
			if err == nil {
				s.Close()
				t.Fatal("Open succeeded")
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Open: %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

// TestOpenUnreachable checks the advice given when no server answers: a
// port nothing listens on.
func TestOpenUnreachable(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	_, err := Open(ctx, "arangodb://root:pw@127.0.0.1:1/x", Options{})
	if err == nil {
		t.Fatal("Open of an unreachable server succeeded")
	}
	for _, want := range []string{"cannot reach ArangoDB at http://127.0.0.1:1", "docker-compose", "root:***"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("Open error %q does not contain %q", err, want)
		}
	}
	if strings.Contains(err.Error(), ":pw@") {
		t.Errorf("Open error leaks the password: %v", err)
	}
}

func TestValidate(t *testing.T) {
	t.Parallel()
	fn := graphdb.Node{ID: "go:a.F", Kind: graphdb.KindFunction, Name: "F"}
	tests := []struct {
		name  string
		f     graphdb.FileRecord
		nodes []graphdb.Node
		edges []graphdb.Edge
		want  string
	}{
		{"ok", graphdb.FileRecord{Path: "a.go"}, []graphdb.Node{fn}, []graphdb.Edge{{From: "a", To: "b", Kind: graphdb.EdgeCalls}}, ""},
		{"empty path", graphdb.FileRecord{}, nil, nil, "empty path"},
		{"empty id", graphdb.FileRecord{Path: "a.go"}, []graphdb.Node{{Kind: graphdb.KindFunction, QName: "a.F"}}, nil, "empty id"},
		{"bad kind", graphdb.FileRecord{Path: "a.go"}, []graphdb.Node{{ID: "x", Kind: "widget"}}, nil, `unknown kind "widget"`},
		{"duplicate id", graphdb.FileRecord{Path: "a.go"}, []graphdb.Node{fn, fn}, nil, "appears twice"},
		{"empty edge end", graphdb.FileRecord{Path: "a.go"}, nil, []graphdb.Edge{{From: "a", Kind: graphdb.EdgeCalls}}, "empty end"},
		{"bad edge kind", graphdb.FileRecord{Path: "a.go"}, nil, []graphdb.Edge{{From: "a", To: "b", Kind: "likes"}}, `unknown kind "likes"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := graphdb.ValidateReplace(tc.f, tc.nodes, tc.edges)
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("validate: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("validate: %v, want an error containing %q", err, tc.want)
			}
		})
	}
}
