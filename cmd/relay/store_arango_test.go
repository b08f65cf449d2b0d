package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/relayhq/relay/graphdb/arango"
)

// relayEnv runs relay with the given environment.
func relayEnv(t *testing.T, env map[string]string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(t.Context(), args, strings.NewReader(""), &out, &errb, func(k string) string { return env[k] })
	return code, out.String(), errb.String()
}

func TestArangoStoreErrors(t *testing.T) {
	t.Parallel()
	repo := t.TempDir()
	env := map[string]string{"RELAY_ARANGO_PASSWORD": "s3cretpw"}
	tests := []struct {
		name    string
		args    []string
		code    int
		wantErr string
	}{
		{"unreachable index", []string{"index", "--repo", repo, "--store", "arangodb://root@127.0.0.1:1/relay"}, 1,
			"cannot reach ArangoDB at http://127.0.0.1:1"},
		{"unreachable graph", []string{"graph", "callers", "X", "--repo", repo, "--store", "arangodb://127.0.0.1:1/relay"}, 1,
			"cannot reach ArangoDB at http://127.0.0.1:1"},
		{"bad database name", []string{"index", "--repo", repo, "--store", "arangodb://localhost/1bad"}, 2, "must start with a letter"},
		{"query parameters", []string{"index", "--repo", repo, "--store", "arangodb://localhost/x?tls=1"}, 2, "query parameters are not supported"},
		{"bad port", []string{"graph", "callers", "X", "--repo", repo, "--store", "arangodbs://localhost:99999/x"}, 2, "between 1 and 65535"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := relayEnv(t, env, tc.args...)
			if code != tc.code || !strings.Contains(stderr, tc.wantErr) {
				t.Errorf("relay %v = %d, stderr %q; want %d containing %q", tc.args, code, stderr, tc.code, tc.wantErr)
			}
			if strings.Contains(stderr, "s3cretpw") {
				t.Errorf("stderr leaks the password: %q", stderr)
			}
		})
	}
	if entries, _ := os.ReadDir(repo); len(entries) != 0 {
		t.Errorf("an ArangoDB --store left files in the repository: %v", entries)
	}
}

// TestArangoIndexAndGraph indexes the sample repository into ArangoDB and
// checks that every graph answer equals the embedded store's. It needs a
// server: RELAY_ARANGO_URL (and RELAY_ARANGO_PASSWORD) name one.
func TestArangoIndexAndGraph(t *testing.T) {
	raw := os.Getenv("RELAY_ARANGO_URL")
	if raw == "" {
		t.Skip("RELAY_ARANGO_URL is not set, so there is no ArangoDB server to index into; see examples/arangodb")
	}
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	var b [8]byte
	rand.Read(b[:])
	u.Path = "/relaytest_" + hex.EncodeToString(b[:])
	store := u.String()
	env := map[string]string{"RELAY_ARANGO_PASSWORD": os.Getenv("RELAY_ARANGO_PASSWORD")}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		st, err := arango.Open(ctx, store, arango.Options{Password: env["RELAY_ARANGO_PASSWORD"]})
		if err == nil {
			err = st.Drop(ctx)
		}
		if err != nil {
			t.Errorf("drop test database: %v", err)
		}
	})

	repo := sampleRepo(t)
	if code, _, stderr := relayEnv(t, env, "graph", "callers", "retry.Do", "--repo", repo, "--store", store); code != 1 || !strings.Contains(stderr, "run `relay index") {
		t.Errorf("graph before index = %d %q; want 1 with advice to index", code, stderr)
	}
	if code, _, stderr := relayEnv(t, env, "index", "--repo", repo, "--store", store); code != 0 {
		t.Fatalf("index into ArangoDB: %d %s", code, stderr)
	}
	if code, _, stderr := relayEnv(t, env, "index", "--repo", repo); code != 0 {
		t.Fatalf("index into the embedded store: %d %s", code, stderr)
	}
	if code, stdout, _ := relayEnv(t, env, "index", "--repo", repo, "--store", store); code != 0 || !strings.Contains(stdout, "is up to date") {
		t.Errorf("second index into ArangoDB = %d:\n%s", code, stdout)
	}
	for _, args := range [][]string{
		{"graph", "callers", "Service.Send"},
		{"graph", "callers", "retry.Do", "--depth", "3"},
		{"graph", "callees", "example.com/sample/notify.Service.Send"},
		{"graph", "implementations", "notify.Sender"},
		{"graph", "methods", "notify/notify.go:Service"},
		{"graph", "usages", "notify.Message"},
		{"graph", "inheritors", "store.Reader"},
		{"graph", "blast-radius", "retry.Do", "notify.SMSSender.Send"},
		{"graph", "callers", "Send"},
	} {
		ecode, eout, eerr := relayEnv(t, env, append(args, "--repo", repo)...)
		acode, aout, aerr := relayEnv(t, env, append(args, "--repo", repo, "--store", store)...)
		if ecode != acode || eout != aout || ecode != 0 && stripPaths(eerr) != stripPaths(aerr) {
			t.Errorf("relay %v differs between stores:\nembedded %d:\n%s%s\narangodb %d:\n%s%s", args, ecode, eout, eerr, acode, aout, aerr)
		}
	}
}

// stripPaths drops the first line's store location from an error.
func stripPaths(s string) string {
	if i := strings.LastIndex(s, ": "); i >= 0 {
		return s[i:]
	}
	return s
}
