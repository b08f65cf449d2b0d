package egress

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
)

// The repository of the outside-in check: a key in .env, its first 24
// characters copied into a markdown table whose format no rule knows.
const (
	envKey    = "Zq8vL3nW1xY7tK9pR2sD5fG4hJ6kM0nB"
	copiedKey = "Zq8vL3nW1xY7tK9pR2sD5fG4"
)

func valuesRepo(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	for name, body := range map[string]string{
		".env":          "AWS_SECRET_ACCESS_KEY=" + envKey + "\nDB_PASSWORD=hunter2-canary-Prod-7731\n",
		"docs/setup.md": "| name | value |\n|---|---|\n| secret | " + copiedKey + " |\n",
	} {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// TestFilterValues: once the checkout's values are added, the filter
// redacts a copied value gitleaks does not recognise, in any case and in
// pieces, counts it as secret-file-value, and leaves the look-alikes and
// the names of the settings alone.
func TestFilterValues(t *testing.T) {
	t.Parallel()
	root := valuesRepo(t)
	f, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	table := "| secret | " + copiedKey + " |\n"
	if res := f.Redact(table); !strings.Contains(res.Text, copiedKey) {
		t.Fatalf("gitleaks alone redacts the copy, so the test shows nothing: %q", res.Text)
	}
	vals, err := SecretValues(root, f.files)
	if err != nil || len(vals) == 0 {
		t.Fatalf("SecretValues = %d values, %v", len(vals), err)
	}
	f.AddValues(vals)
	f.AddValues(vals) // adding again adds nothing
	tests := []struct {
		name, text, secret string
	}{
		{"table", table, copiedKey},
		{"lower-cased", "terms: " + strings.ToLower(copiedKey), strings.ToLower(copiedKey)},
		{"spread", "key Zq8v-L3nW-1xY7-tK9p-R2sD-5fG4 end", "Zq8v-L3nW-1xY7-tK9p"},
		{"json", `{"content":"| secret | ` + copiedKey + ` |\n"}`, copiedKey},
		{"password", "psql -W hunter2-canary-Prod-7731", "hunter2-canary-Prod-7731"},
		{"whole", "k=" + envKey, envKey},
	}
	for _, tc := range tests {
		res := f.Redact(tc.text)
		if strings.Contains(res.Text, tc.secret) || res.Counts[ValueRule] == 0 {
			t.Errorf("%s: %q → %q %v", tc.name, tc.text, res.Text, res.Counts)
		}
	}
	for _, s := range append(lookalikes, "AWS_SECRET_ACCESS_KEY and DB_PASSWORD are read from .env\n") {
		if res := f.Redact(s); res.Text != s {
			t.Errorf("look-alike changed: %q → %q", s, res.Text)
		}
	}
	if per, _ := f.Stats(); per[ValueRule] == 0 {
		t.Errorf("stats lack %s: %v", ValueRule, per)
	}
}

// TestFilterAddValuesConcurrent adds values while texts are redacted (run
// with -race): each text is redacted by the values added before it.
func TestFilterAddValuesConcurrent(t *testing.T) {
	t.Parallel()
	f, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Go(func() {
			v := strings.Repeat(string(rune('A'+i)), 4) + "q8Xv2Lm9Rt4Wz7Pk"
			f.AddValues([]string{v})
			if res := f.Redact("x " + v + " y"); strings.Contains(res.Text, v) {
				t.Errorf("%s survived: %q", v, res.Text)
			}
		})
	}
	wg.Wait()
}

// naiveReplace is the straightforward matcher Values replaces: each value
// searched in the reduced text, then every position tried for a fragment.
func naiveReplace(s string, values []string) string {
	var norm strings.Builder
	var pos []int
	for i := 0; i < len(s); i++ {
		if isAlnum(s[i]) {
			norm.WriteByte(s[i])
			pos = append(pos, i)
		}
	}
	n := strings.ToLower(norm.String())
	covered := make([]bool, len(n))
	var spans []span
	vs := append([]string(nil), values...)
	sort.SliceStable(vs, func(i, j int) bool { return len(vs[i]) > len(vs[j]) })
	for _, v := range vs {
		v = strings.ToLower(v)
		for from := 0; ; {
			i := strings.Index(n[from:], v)
			if i < 0 {
				break
			}
			a, b := from+i, from+i+len(v)
			from = a + 1
			if covered[a] || covered[b-1] {
				continue
			}
			for k := a; k < b; k++ {
				covered[k] = true
			}
			spans = append(spans, span{pos[a], pos[b-1] + 1})
		}
	}
	frags := fragments(values)
	for a := 0; a+fragLen <= len(n); a++ {
		if !frags[n[a:a+fragLen]] {
			continue
		}
		b := a + fragLen
		for b < len(n) && frags[n[b+1-fragLen:b+1]] {
			b++
		}
		if !covered[a] || !covered[b-1] {
			for k := a; k < b; k++ {
				covered[k] = true
			}
			spans = append(spans, span{pos[a], pos[b-1] + 1})
		}
		a = b - 1
	}
	return cutSpans(s, spans)
}

// FuzzValues compares the compiled matcher with the naive one.
func FuzzValues(f *testing.F) {
	f.Add("| secret | Zq8vL3nW1xY7tK9pR2sD5fG4 |", "Zq8vL3nW1xY7tK9pR2sD5fG4hJ6kM0nB", "hunter2canaryProd7731")
	f.Add("aaaaaaaaaaaaaaaaaaaaaaaaaaa", "aaaaaaaaaaaaaa", "aaaaaaaaaaaaaaaaaaaaaaaa")
	f.Add("first half `hunter2-cana`\n> `ry-Prod-7731`", "hunter2canaryProd7731", "q8Xv2Lm9Rt4Wz7Pkd5Jf0Gs8Ua2Qe4Vi")
	f.Fuzz(func(t *testing.T, s, v1, v2 string) {
		var vals []string
		for _, v := range []string{alnum(v1), alnum(v2)} {
			if len(v) >= minValue {
				vals = append(vals, v)
			}
		}
		got, _ := CompileValues(vals).Replace(s)
		if want := naiveReplace(s, vals); len(vals) > 0 && len(s) >= gram && got != want {
			t.Fatalf("Replace(%q, %q) = %q, the naive matcher gives %q", s, vals, got, want)
		}
	})
}
