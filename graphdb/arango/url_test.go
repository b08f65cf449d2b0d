package arango

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/relayhq/relay/internal/redact"
)

func TestParseURL(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		raw  string
		want Target
	}{
		{"full", "arangodb://alice:s3cret@db.example.com:9000/myrepo",
			Target{Endpoint: "http://db.example.com:9000", Database: "myrepo", User: "alice", Password: "s3cret", HasPassword: true}},
		{"tls", "arangodbs://alice:pw@db.example.com:8530/graph_1",
			Target{Endpoint: "https://db.example.com:8530", Database: "graph_1", User: "alice", Password: "pw", HasPassword: true, TLS: true}},
		{"defaults", "arangodb://localhost",
			Target{Endpoint: "http://localhost:8529", Database: "relay", User: "root"}},
		{"trailing slash means default database", "arangodb://localhost:8529/",
			Target{Endpoint: "http://localhost:8529", Database: "relay", User: "root"}},
		{"user without password", "arangodb://bob@localhost/x",
			Target{Endpoint: "http://localhost:8529", Database: "x", User: "bob"}},
		{"empty password is a password", "arangodb://bob:@localhost/x",
			Target{Endpoint: "http://localhost:8529", Database: "x", User: "bob", HasPassword: true}},
		{"password with escaped characters", "arangodb://root:p%40ss%2Fw%3Ard@localhost/x",
			Target{Endpoint: "http://localhost:8529", Database: "x", User: "root", Password: "p@ss/w:rd", HasPassword: true}},
		{"ipv6 host", "arangodb://[::1]:8529/x",
			Target{Endpoint: "http://[::1]:8529", Database: "x", User: "root"}},
		{"ipv4 host default port", "arangodbs://10.0.0.7/x",
			Target{Endpoint: "https://10.0.0.7:8529", Database: "x", User: "root", TLS: true}},
		{"dash in database", "arangodb://h/my-repo",
			Target{Endpoint: "http://h:8529", Database: "my-repo", User: "root"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseURL(tc.raw)
			if err != nil {
				t.Fatalf("ParseURL(%q): %v", tc.raw, err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("ParseURL(%q) (-want +got):\n%s", tc.raw, diff)
			}
		})
	}
}

func TestParseURLErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, raw, want string
	}{
		{"empty", "", "empty ArangoDB URL"},
		{"wrong scheme", "http://localhost:8529/x", `scheme "http" is not arangodb`},
		{"no slashes", "arangodb:localhost", "missing // after the scheme"},
		{"no host", "arangodb:///x", "missing host"},
		{"bad port", "arangodb://localhost:http/x", "invalid port"},
		{"port out of range", "arangodb://localhost:70000/x", `port "70000" is not a number between 1 and 65535`},
		{"port zero", "arangodb://localhost:0/x", `port "0" is not a number`},
		{"empty port", "arangodb://localhost:/x", "empty port"},
		{"query", "arangodb://localhost/x?tls=1", "query parameters are not supported"},
		{"fragment", "arangodb://localhost/x#frag", "unexpected fragment"},
		{"two path segments", "arangodb://localhost/a/b", "more than one segment"},
		{"database starts with digit", "arangodb://localhost/1repo", "must start with a letter"},
		{"database with dot", "arangodb://localhost/my.repo", "may hold only letters"},
		{"database too long", "arangodb://localhost/" + strings.Repeat("a", 65), "1 to 64 characters"},
		{"password not echoed", "arangodb://root:topsecret@localhost/a/b", "root:***@localhost"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseURL(tc.raw)
			if err == nil {
				t.Fatalf("ParseURL(%q) succeeded, want an error containing %q", tc.raw, tc.want)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("ParseURL(%q) error %q, want it to contain %q", tc.raw, err, tc.want)
			}
			if strings.Contains(err.Error(), "topsecret") {
				t.Errorf("ParseURL(%q) error leaks the password: %v", tc.raw, err)
			}
		})
	}
}

func TestTargetString(t *testing.T) {
	t.Parallel()
	tests := []struct {
		raw, want string
	}{
		{"arangodb://alice:s3cret@h:9000/db", "arangodb://alice:***@h:9000/db"},
		{"arangodbs://h/db", "arangodbs://root@h:8529/db"},
		{"arangodb://bob@h", "arangodb://bob@h:8529/relay"},
	}
	for _, tc := range tests {
		tg, err := ParseURL(tc.raw)
		if err != nil {
			t.Fatal(err)
		}
		if got := tg.String(); got != tc.want {
			t.Errorf("ParseURL(%q).String() = %q, want %q", tc.raw, got, tc.want)
		}
	}
}

func TestIsURL(t *testing.T) {
	t.Parallel()
	for s, want := range map[string]bool{
		"arangodb://h/db": true, "arangodbs://h/db": true, "arangodb:h": false,
		"/tmp/store": false, ".relay": false, "http://h": false, "": false,
	} {
		if got := IsURL(s); got != want {
			t.Errorf("IsURL(%q) = %v, want %v", s, got, want)
		}
	}
}

func TestRedactURL(t *testing.T) {
	t.Parallel()
	for raw, want := range map[string]string{
		"arangodb://u:p@h/db":   "arangodb://u:***@h/db",
		"arangodb://u@h/db":     "arangodb://***@h/db", // a lone user-info may be a token
		"arangodb://h/db":       "arangodb://h/db",
		"arangodb://u:p:q@h/db": "arangodb://u:***@h/db",
		"not a url":             "not a url",
	} {
		if got := redact.URL(raw); got != want {
			t.Errorf("redact(%q) = %q, want %q", raw, got, want)
		}
	}
}
