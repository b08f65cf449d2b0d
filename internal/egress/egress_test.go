package egress

import (
	"errors"
	"path"
	"slices"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"
)

// Canary values: real formats, made-up values (none of them is a live
// credential). Each must be redacted and its rule counted.
var canaries = []struct {
	name, text, secret string
}{
	{"aws key id", "aws_access_key_id = AKIAZ3MSJV4WWNKWW5FG\n", "AKIAZ3MSJV4WWNKWW5FG"},
	{"aws secret", "AWS_SECRET_ACCESS_KEY=q8Vr3KxZ0pLm2Nf7Ty1Wb9Hc4Jd6Ge5Rs0Ua2Io\n", "q8Vr3KxZ0pLm2Nf7Ty1Wb9Hc4Jd6Ge5Rs0Ua2Io"},
	{"github pat", "const token = \"ghp_R8kq2LmN4pXv7TzW1yB3cD5eF6gH9jK0lMnQ\"\n", "ghp_R8kq2LmN4pXv7TzW1yB3cD5eF6gH9jK0lMnQ"},
	{"slack bot", "slack: xoxb-2493741023-1934718234012-Fh3kLm9QpZx2Wv8Ty6Rb4Nc1\n", "xoxb-2493741023-1934718234012-Fh3kLm9QpZx2Wv8Ty6Rb4Nc1"},
	{"generic api key", "api_key: 'f3a9c8e1b2d4a6c8e0f2a4b6c8d0e2f4'\n", "f3a9c8e1b2d4a6c8e0f2a4b6c8d0e2f4"},
	{"private key", "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA7V1xZk3w9Qm4Rb2Tc8Yd1Xe6Wf5Vg0Uh3Ti7Sj2Rk9Ql4Pm8On1\nQm4Rb2Tc8Yd1Xe6Wf5Vg0Uh3Ti7Sj2Rk9Ql4Pm8On1MIIEpAIBAAKCAQEA7V1xZk3w9\n-----END RSA PRIVATE KEY-----\n", "MIIEpAIBAAKCAQEA7V1xZk3w9Qm4Rb2Tc8Yd1Xe6Wf5Vg0Uh3Ti7Sj2Rk9Ql4Pm8On1"},
	{"jwt", "Authorization: Bearer eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c\n", "SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"},
	{"connection string", "DATABASE_URL=postgres://admin:S3cr3tPa55w0rd@db.internal:5432/prod\n", "S3cr3tPa55w0rd"},
}

// Look-alikes that must survive: hashes, UUIDs, base64 fixtures, code.
var lookalikes = []string{
	"commit 5ff93e7c2d4b1a0e9f8d7c6b5a4f3e2d1c0b9a8f fixed the race\n",
	"sha256: e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855\n",
	"id := uuid.MustParse(\"123e4567-e89b-12d3-a456-426614174000\")\n",
	"fixture := \"SGVsbG8sIHdvcmxkISBUaGlzIGlzIGEgdGVzdCBmaXh0dXJlLg==\"\n",
	"func (s *Service) SendSMS(ctx context.Context, to string) error { return s.client.Send(ctx, to) }\n",
	"apiKey := os.Getenv(\"API_KEY\")\n",
	"See https://github.com/relayhq/relay/issues/17 for details.\n",
}

func TestRedactCanaries(t *testing.T) {
	f, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range canaries {
		t.Run(c.name, func(t *testing.T) {
			res := f.Redact("before\n" + c.text + "after\n")
			if strings.Contains(res.Text, c.secret) {
				t.Errorf("secret survived:\n%s", res.Text)
			}
			if res.N() == 0 || !strings.Contains(res.Text, "[redacted: ") && !strings.Contains(res.Text, "***") {
				t.Errorf("no redaction recorded: %+v", res)
			}
			if !strings.HasPrefix(res.Text, "before\n") || !strings.HasSuffix(res.Text, "after\n") || !utf8.ValidString(res.Text) {
				t.Errorf("surrounding text changed:\n%s", res.Text)
			}
		})
	}
}

func TestRedactLookalikes(t *testing.T) {
	f := Default()
	for _, s := range lookalikes {
		if res := f.Redact(s); res.Text != s || res.N() != 0 {
			t.Errorf("look-alike changed:\n got %q\nwant %q", res.Text, s)
		}
	}
}

func TestRedactCountsRepeats(t *testing.T) {
	f, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	tok := "ghp_R8kq2LmN4pXv7TzW1yB3cD5eF6gH9jK0lMnQ"
	res := f.Redact("a " + tok + "\nb " + tok + "\n")
	if strings.Contains(res.Text, tok) || res.Counts["github-pat"] != 2 {
		t.Fatalf("got %q, counts %v", res.Text, res.Counts)
	}
	if per, total := f.Stats(); total != 2 || per["github-pat"] != 2 {
		t.Fatalf("stats %v %d", per, total)
	}
}

func TestRedactConcurrent(t *testing.T) {
	f := Default()
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, c := range canaries {
				if strings.Contains(f.String(c.text), c.secret) {
					t.Errorf("%s survived", c.name)
				}
			}
		}()
	}
	wg.Wait()
}

func TestFilePolicy(t *testing.T) {
	p, err := NewFilePolicy(nil, []string{"conf/*.secret"}, []string{"deploy/test.pem"})
	if err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]bool{
		".env":                     true,
		"services/api/.env":        true,
		".env.production":          true,
		".env.example":             false,
		"config/credentials.yml":   true,
		"deploy/id_rsa":            true,
		"deploy/id_rsa.pub":        false,
		"certs/server.key":         true,
		"deploy/test.pem":          false, // allowed by the operator
		"k8s/prod.kubeconfig":      true,
		"home/.kube/config":        true,
		".npmrc":                   true,
		"conf/db.secret":           true,
		"internal/credentials.go":  false,
		"auth/credentials_test.py": false,
		"src/env.ts":               false,
		"docs/keys.md":             false,
	} {
		if _, got := p.Match(path); got != want {
			t.Errorf("Match(%q) = %v, want %v", path, got, want)
		}
	}
	err = p.Check("config/credentials.yml")
	var re *RefusedError
	if !errors.Is(err, ErrSecretFile) || !errors.As(err, &re) || re.Path != "config/credentials.yml" {
		t.Fatalf("Check: %v", err)
	}
	if _, err := NewFilePolicy(nil, []string{"[bad"}, nil); err == nil {
		t.Fatal("a malformed pattern was accepted")
	}
}

// TestExcludeGlobsAgreeWithMatch: a file whose name an exclusion glob
// matches must be secret-bearing by Match too, or rg would hide a file the
// policy lets through.
func TestExcludeGlobsAgreeWithMatch(t *testing.T) {
	paths := []string{".env", ".env.example", "a/.env.sample", "x.env", "x.env.example", "deploy/id_rsa", "deploy/id_rsa.pub",
		"certs/a.pem", "deploy/test.pem", "config/credentials.yml", "credentials/readme.md", "credentials/x/y.go",
		".npmrc", "k.kubeconfig", "terraform.tfstate", "terraform.tfstate.backup", "secrets.yml", "main.go", "docs/env.md"}
	for _, allow := range [][]string{nil, {"deploy/*.pem"}, {"config/credentials.yml", "credentials/readme.md"}, {".env"}} {
		p, err := NewFilePolicy(nil, []string{"conf/*.secret", "*.vault"}, allow)
		if err != nil {
			t.Fatal(err)
		}
		globs := p.ExcludeGlobs()
		if allow == nil && (!slices.Contains(globs, ".env") || !slices.Contains(globs, "*.pem") || slices.Contains(globs, ".env.*") || slices.Contains(globs, "id_rsa*")) {
			t.Errorf("default exclusions %v", globs)
		}
		for _, rel := range paths {
			for _, g := range globs {
				for _, seg := range strings.Split(rel, "/") {
					if ok, _ := path.Match(g, seg); ok {
						if _, secret := p.Match(rel); !secret {
							t.Errorf("allow %v: glob %q hides %s, which the policy lets through", allow, g, rel)
						}
					}
				}
			}
		}
	}
}

// TestRedactEncoded: a token percent-, base64- or hex-encoded (in a URL, a
// fixture, a config value) is found through gitleaks' decoders and the
// encoded text itself is redacted.
func TestRedactEncoded(t *testing.T) {
	const token = "ghp_R8kq2LmN4pXv7TzW1yB3cD5eF6gH9jK0lMnQ"
	tests := []struct{ name, text, encoded string }{
		{"percent", "https://ci.example/hook?token=ghp%5FR8kq2LmN4pXv7TzW1yB3cD5eF6gH9jK0lMnQ&x=1\n", "ghp%5FR8kq2LmN4pXv7TzW1yB3cD5eF6gH9jK0lMnQ"},
		{"percent everywhere", "v=%67%68%70%5F%52%38kq2LmN4pXv7TzW1yB3cD5eF6gH9jK0lMnQ\n", "%67%68%70%5F%52%38kq2LmN4pXv7TzW1yB3cD5eF6gH9jK0lMnQ"},
		{"after multi-byte text", "ключ → ghp%5FR8kq2LmN4pXv7TzW1yB3cD5eF6gH9jK0lMnQ ok\n", "ghp%5FR8kq2LmN4pXv7TzW1yB3cD5eF6gH9jK0lMnQ"},
		{"base64 a line after a percent-encoding", "ключ → ghp%5FR8kq2LmN4pXv7TzW1yB3cD5eF6gH9jK0lMnQ\nZ2hwX1I4a3EyTG1ONHBYdjdUelcxeUIzY0Q1ZUY2Z0g5akswbE1uUQ==\n", "Z2hwX1I4a3EyTG1ONHBYdjdUelcxeUIzY0Q1ZUY2Z0g5akswbE1uUQ"},
		{"base64", "blob: Z2hwX1I4a3EyTG1ONHBYdjdUelcxeUIzY0Q1ZUY2Z0g5akswbE1uUQ== end\n", "Z2hwX1I4a3EyTG1ONHBYdjdUelcxeUIzY0Q1ZUY2Z0g5akswbE1uUQ"},
		{"hex", "h := \"6768705f52386b71324c6d4e3470587637547a57317942336344356546366748396a4b306c4d6e51\"\n", "6768705f52386b71324c6d4e3470587637547a57317942336344356546366748396a4b306c4d6e51"},
	}
	f := Default()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := f.Redact("before\n" + tt.text + "after\n")
			if strings.Contains(res.Text, tt.encoded) || strings.Contains(res.Text, token) {
				t.Errorf("encoded token survived:\n%s", res.Text)
			}
			if res.N() == 0 {
				t.Errorf("no redaction recorded: %+v", res)
			}
			if !strings.HasPrefix(res.Text, "before\n") || !strings.HasSuffix(res.Text, "after\n") || !utf8.ValidString(res.Text) {
				t.Errorf("surrounding text changed:\n%s", res.Text)
			}
		})
	}
}

// TestRedactEncodedShifted: gitleaks places a finding in decoded text by
// the decoded text's newlines, which a percent-encoding on an earlier line
// shifts; the text before the encoded secret must stay whole.
func TestRedactEncodedShifted(t *testing.T) {
	in := "ключ → ghp%5FR8kq2LmN4pXv7TzW1yB3cD5eF6gH9jK0lMnQ\nZ2hwX1I4a3EyTG1ONHBYdjdUelcxeUIzY0Q1ZUY2Z0g5akswbE1uUQ=="
	want := "ключ → [redacted: github-pat]\n[redacted: github-pat]"
	if got := Default().Redact(in).Text; got != want {
		t.Errorf("Redact(%q) = %q, want %q", in, got, want)
	}
}
