package egress_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"testing"

	"github.com/relayhq/relay/internal/egress"
	"github.com/relayhq/relay/internal/egress/egresstest"
)

// TestCanaryRepoRedacted passes every file of the canary repository through
// the filter: no planted value survives, every look-alike does.
func TestCanaryRepoRedacted(t *testing.T) {
	f := egress.Default()
	var all strings.Builder
	for name, data := range egresstest.Files() {
		out := f.String(data)
		if leaks := egresstest.Leaks(out); len(leaks) > 0 {
			t.Errorf("%s: %v survived:\n%s", name, leaks, out)
		}
		all.WriteString(out)
	}
	for _, v := range egresstest.Lookalikes() {
		if !strings.Contains(all.String(), v) {
			t.Errorf("look-alike %q was redacted", v)
		}
	}
}

// TestWriterRedactsSplitWrites writes the canary files a few bytes at a
// time: a secret cut between two writes, and a private key spread over
// many, must still be redacted.
func TestWriterRedactsSplitWrites(t *testing.T) {
	for _, size := range []int{1, 7, 64, 1 << 20} {
		for name, data := range egresstest.Files() {
			var out bytes.Buffer
			w := egress.NewWriter(&out, egress.Default())
			for s := data; s != ""; {
				n := min(size, len(s))
				if _, err := w.Write([]byte(s[:n])); err != nil {
					t.Fatal(err)
				}
				s = s[n:]
			}
			if err := w.Flush(); err != nil {
				t.Fatal(err)
			}
			if leaks := egresstest.Leaks(out.String()); len(leaks) > 0 {
				t.Errorf("%s in writes of %d bytes: %v survived:\n%s", name, size, leaks, out.String())
			}
			if egress.Default().String(data) != out.String() {
				t.Errorf("%s in writes of %d bytes: output differs from the redacted text", name, size)
			}
		}
	}
}

// TestHandlerRedacts logs canary values as message, string, error and
// group attributes.
func TestHandlerRedacts(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(egress.Handler(slog.NewJSONHandler(&buf, nil), egress.Default()))
	for _, c := range egresstest.Canaries() {
		if c.Kind == "private-key" || c.Kind == "private-key-in-code" {
			continue // a key body alone is no key; the files test covers keys
		}
		line := "token=" + c.Value
		if strings.HasSuffix(c.Kind, "-password") {
			line = "dial postgres://app:" + c.Value + "@db:5432/app"
		}
		log.With("with", line).Info("read "+line, "s", line, "err", errors.New("failed: "+line), slog.Group("g", "v", line))
	}
	if leaks := egresstest.Leaks(buf.String()); len(leaks) > 0 {
		t.Errorf("%v survived:\n%s", leaks, buf.String())
	}
}

// TestRefusedErrorNamesFile: the refusal names the file and the pattern
// and is a *RefusedError wrapping ErrSecretFile; who may allow the file,
// and how, is the surface's advice (internal/advice), not a flag here.
func TestRefusedErrorNamesFile(t *testing.T) {
	err := egress.DefaultFilePolicy().Check("config/credentials.yml")
	var re *egress.RefusedError
	if !errors.As(err, &re) || !errors.Is(err, egress.ErrSecretFile) || re.Path != "config/credentials.yml" || re.Pattern != "credentials.yml" {
		t.Fatalf("Check error %#v, want a *RefusedError of config/credentials.yml by credentials.yml", err)
	}
	for _, want := range []string{"config/credentials.yml", `"credentials.yml"`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("Check error %v does not name %s", err, want)
		}
	}
	for _, advice := range []string{"--allow-secret-files", "RELAY_ALLOW_SECRET_FILES"} {
		if strings.Contains(err.Error(), advice) {
			t.Errorf("Check error %v names %s", err, advice)
		}
	}
}

// TestRedactJSONQuoted redacts the canary files as they appear inside
// JSON (a tool call's arguments, --json output): escaped quotes and
// newlines must not hide a secret.
func TestRedactJSONQuoted(t *testing.T) {
	for name, data := range egresstest.Files() {
		b, err := json.Marshal(map[string]string{"file": name, "text": data})
		if err != nil {
			t.Fatal(err)
		}
		out := egress.Default().String(string(b))
		if leaks := egresstest.Leaks(out); len(leaks) > 0 {
			t.Errorf("%s: %v survived:\n%s", name, leaks, out)
		}
		var back map[string]string
		if err := json.Unmarshal([]byte(out), &back); err != nil {
			t.Errorf("%s: redaction broke the JSON: %v", name, err)
		}
	}
}

// TestRedactPartialKeys: the first lines of a private key (a read that
// stops before "-----END") are redacted too, and the text around stays.
func TestRedactPartialKeys(t *testing.T) {
	key := egresstest.Files()["deploy/id_rsa"]
	lines := strings.SplitAfter(key, "\n")
	for n := 1; n < len(lines); n++ {
		in := "const k = `" + strings.Join(lines[:n], "") + "`\nfunc f() {}\n"
		out := egress.Default().String(in)
		if strings.Contains(out, "BEGIN RSA") || len(egresstest.Leaks(out)) > 0 || !strings.Contains(out, "func f() {}") {
			t.Errorf("first %d lines:\n%s", n, out)
		}
	}
	keep := "if strings.HasPrefix(s, \"-----BEGIN CERTIFICATE-----\") {\n\treturn cert\n}\n"
	if out := egress.Default().String(keep); out != keep {
		t.Errorf("a certificate header was redacted:\n%s", out)
	}
}

// TestRedactKeyTails: grep's context lines before a key's END line (the
// tail of a key, no BEGIN in sight) lose their key material, keeping the
// file and line prefixes.
func TestRedactKeyTails(t *testing.T) {
	in := "internal/sms/token.go-14-MHcCAQEEIBq7Xn2Lm9Kd4Wp8Ty3Vb6Hc1Jd5Ge0Rs9Ua2Io7Fk4NoAoGCCqGSM49\n" +
		"internal/sms/token.go-15-AwEHoUQDQgAE5Xn2Lm9Kd4Wp8Ty3Vb6Hc1Jd5Ge0Rs9Ua2Io7Fk4Nq8Vr3KxZ0pLm2\n" +
		"internal/sms/token.go:16:-----END EC PRIVATE KEY-----`\n" +
		"internal/sms/token.go-17-func f() {}\n"
	out := egress.Default().String(in)
	want := "internal/sms/token.go-14-…\ninternal/sms/token.go-15-…\ninternal/sms/token.go:16:[redacted: private-key]`\ninternal/sms/token.go-17-func f() {}\n"
	if out != want {
		t.Errorf("got:\n%s\nwant:\n%s", out, want)
	}
}
