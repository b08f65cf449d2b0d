package publish

import (
	"encoding/base64"
	"encoding/hex"
	"errors"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/relayhq/relay/internal/egress"
	"github.com/relayhq/relay/internal/testutil"
)

func TestSanitize(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		in      string
		want    []string // substrings of the output
		notWant []string
	}{
		{"user and team mentions", "Ping @someone and @org/team, not ada@example.com.",
			[]string{"@" + zwj + "someone", "@" + zwj + "org/team", "ada@example.com"}, []string{"@someone", "@org/"}},
		{"mention in a heading", "# Scoping: @admin please look", []string{"@" + zwj + "admin"}, []string{"@admin"}},
		{"mention in code stays as typed", "run `git log --author=@ada` and\n\n```\n@ci deploy\n```",
			[]string{"`git log --author=@ada`", "\n@ci deploy\n"}, nil},
		{"mention by character reference", "cc &#64;someone, &#x0040;org/team and &commat;admin",
			[]string{"&amp;#64;someone", "&amp;#x0040;org/team", "&amp;commat;admin"}, []string{"&#64;s", "&#x0040;o", "&commat;a"}},
		{"mention name by character reference", "cc @&#115;omeone and @&#x61;dmin",
			[]string{"@" + zwj + "&#115;omeone", "@" + zwj + "&#x61;dmin"}, []string{"@&#"}},
		{"other character references kept", "a &amp; b &lt;c&gt; &#62;", []string{"a &amp; b &lt;c&gt; &#62;"}, nil},
		{"cross-reference by character reference", "see &#35;3 and o/r&num;4", []string{"&amp;#35;3", "&amp;num;4"}, nil},
		{"jira mention", "ask [~jsmith] about it", []string{"[" + zwj + "~jsmith]"}, []string{"[~jsmith]"}},
		{"img tag", `<img src=https://attacker.example/p.gif>`, []string{"&lt;img src=https://attacker.example/p.gif>"}, []string{"<img"}},
		{"details block", "<details>\n<summary>x</summary>\n\nhidden\n</details>", []string{"&lt;details>"}, []string{"<details>", "<summary>"}},
		{"html comment", "a <!-- hidden --> b", []string{"&lt;!-- hidden -->"}, []string{"<!--"}},
		{"script", "<script>alert(1)</script>", nil, []string{"<script"}},
		{"html in code span kept", "use `<br>` here", []string{"`<br>`"}, nil},
		{"markdown image", "![pixel](https://attacker.example/p.gif)", []string{"!&#91;pixel]"}, []string{"![pixel]"}},
		{"javascript link", "[click](javascript:alert(document.cookie)) and [ok](https://example.com)",
			[]string{"&#91;click](javascript:alert(document.cookie))"}, []string{"[click]"}},
		{"entity-obfuscated javascript link", "[x](jav&#x61;script:alert(1))", []string{"&#91;x]"}, []string{"[x]("}},
		{"upper-case scheme", "[x](JaVaScRiPt:alert(1))", []string{"&#91;x]"}, nil},
		{"reference link to data:", "[x][r]\n\n[r]: data:text/html;base64,PHNjcmlwdD4=", []string{"&#91;x]"}, []string{"[x][r]"}},
		{"angle autolink to javascript", "<javascript:alert(1)>", []string{"&lt;javascript:alert(1)>"}, nil},
		{"safe links kept", "[docs](https://example.com/a) and [file](notify/sms.go)", []string{"[docs](https://example.com/a)", "[file](notify/sms.go)"}, nil},
		{"backslash before a bracket does not revive a link", `\[x](javascript:alert(1)) [y](javascript:z)`, []string{`\&#91;x]`}, []string{"[y]"}},
		{"table kept", "| a | b |\n|---|---|\n| `x` | y |", []string{"| a | b |\n|---|---|\n| `x` | y |"}, nil},
		{"issue references", "Fixes #123, see GH-7, gh-8 and other/repo#9 (#10).",
			[]string{"#" + zwj + "123", "GH-" + zwj + "7", "gh-" + zwj + "8", "other/repo#" + zwj + "9", "(#" + zwj + "10)"},
			[]string{"#123", "GH-7", "gh-8", "repo#9", "#10"}},
		{"issue URLs", "see https://github.com/other/repo/issues/5, [pr](https://github.com/Other/Repo/pull/6) and www.github.com/o/r/discussions/7",
			[]string{"github.com/" + zwj + "other/repo/issues/5", "github.com/" + zwj + "Other/Repo/pull/6", "github.com/" + zwj + "o/r/discussions/7"},
			[]string{"github.com/other/", "github.com/Other/", "github.com/o/"}},
		{"enterprise issue URL", "<https://ghe.example.com/team/app/issues/3>", []string{"ghe.example.com/" + zwj + "team/app/issues/3"}, []string{"com/team/"}},
		{"references in code stay as typed", "`#12` and `o/r#3`\n\n```\nGH-3 https://github.com/o/r/issues/1\n```",
			[]string{"`#12`", "`o/r#3`", "\nGH-3 https://github.com/o/r/issues/1\n"}, nil},
		{"not references", "## 1. Summary\n\nSee notify/sms.go#L12 and issue #x.", []string{"## 1. Summary", "sms.go#L12", "#x"}, []string{zwj}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := Sanitize(tc.in)
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("Sanitize(%q) = %q, lacks %q", tc.in, got, w)
				}
			}
			for _, w := range tc.notWant {
				if strings.Contains(got, w) {
					t.Errorf("Sanitize(%q) = %q, still holds %q", tc.in, got, w)
				}
			}
			if p := Check(got); len(p) > 0 {
				t.Errorf("Check(Sanitize(%q)) = %v", tc.in, p)
			}
		})
	}
}

// FuzzSanitize: whatever the markdown, the sanitised text passes Check
// (no raw HTML, image, unsafe link or live mention outside code).
func FuzzSanitize(f *testing.F) {
	for _, s := range []string{"@a <b> ![i](x) [j](javascript:x)", "&#64;a @&#97; &commat;b", "`a<b`<c>", "```\n<x>\n```\n<y>", "[a]: vbscript:x\n[a]", "<<b>img src=x>", "\\[x](javascript:1)",
		"#1 GH-2 o/r#3 acme/shop#4", "[x](https://github.com/o/r/issues/1) <https://github.com/acme/shop/pull/2>", "`#1`#2 o/`r#3`", "a/b/c#1 -/-#2 .github.com/x/y/issues/9"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if p := Check(Sanitize(s)); len(p) > 0 {
			t.Fatalf("Sanitize(%q) leaves %v", s, p)
		}
		// With a repository of its own, what refers elsewhere is still
		// neutralised.
		if p := CheckFor(SanitizeFor(s, "acme/shop"), "acme/shop"); len(p) > 0 {
			t.Fatalf("SanitizeFor(%q, acme/shop) leaves %v", s, p)
		}
	})
}

// TestSanitizeFor: references to the report's own repository stay live;
// others are neutralised.
func TestSanitizeFor(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in string
		want     string
	}{
		{"own references kept", "See #12, GH-3, acme/shop#4, ACME/Shop#5 and https://github.com/acme/shop/issues/6.",
			"See #12, GH-3, acme/shop#4, ACME/Shop#5 and https://github.com/acme/shop/issues/6."},
		{"other repositories neutralised", "other/x#1, https://github.com/other/x/issues/2 and [y](https://github.com/acme/shop2/pull/3)",
			"other/x#" + zwj + "1, https://github.com/" + zwj + "other/x/issues/2 and [y](https://github.com/" + zwj + "acme/shop2/pull/3)"},
		{"a look-alike qualifier", "acme/shop.evil#7 and xacme/shop#8", "acme/shop.evil#" + zwj + "7 and xacme/shop#" + zwj + "8"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := SanitizeFor(tc.in, "acme/shop")
			if got != tc.want {
				t.Errorf("SanitizeFor(%q) =\n%q\nwant\n%q", tc.in, got, tc.want)
			}
			if p := CheckFor(got, "acme/shop"); len(p) > 0 {
				t.Errorf("CheckFor(%q) = %v", got, p)
			}
			if p := Check(tc.in); len(p) == 0 {
				t.Errorf("Check(%q) finds no cross-reference; posted on another repository, it holds some", tc.in)
			}
		})
	}
}

func TestQuoteCut(t *testing.T) {
	t.Parallel()
	p := egress.Default().Files()
	tests := []struct {
		name, in string
		wantCut  string // the text before the cut; "" with file "" means no cut
		file     string
	}{
		{"citation of .env", "Intro.\n\nThe key is set at .env:2 to a value.\nmore", "Intro.\n\n", ".env"},
		{"github-style line anchor", "see config/credentials.yml#L3", "", "config/credentials.yml"},
		{"code block introduced by the file", "Summary.\n\nThe contents of deploy/id_rsa:\n\n```\nMIIE\n```\n", "Summary.\n\n", "deploy/id_rsa"},
		{"info string names the file", "Summary.\n\n```.env\nA=B\n```\n", "Summary.\n\n", ".env"},
		{"offline heading citing the file", "## Symbols\n\n### 1. `.env:1` (file) — .env:1\n\n```\nX\n```", "## Symbols\n\n", ".env"},
		{"a name alone is not a quote", "Settings come from .env (see config.Load at config/load.go:12).", "", ""},
		{"the word credentials is not a file", "The credentials: 3 kinds.\n\n```go\nfunc Load() {}\n```", "", ""},
		{"example env is not secret", "see .env.example:3", "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cut, file := quoteCut(tc.in, p)
			if file != tc.file {
				t.Fatalf("quoteCut = %d, %q; want file %q", cut, file, tc.file)
			}
			if file != "" && tc.in[:cut] != tc.wantCut {
				t.Errorf("cut before %q, want before %q", tc.in[cut:], tc.in[len(tc.wantCut):])
			}
		})
	}
}

// canary is the checkout of testdata/canary.txtar and the contents of its
// secret-bearing files.
func canary(t testing.TB) (root string, secrets map[string]string) {
	t.Helper()
	root = testutil.WriteTxtar(t, filepath.Join("testdata", "canary.txtar"))
	a, err := txtar.ParseFile(filepath.Join("testdata", "canary.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	secrets = map[string]string{}
	for _, f := range a.Files {
		secrets[f.Name] = string(f.Data)
	}
	return root, secrets
}

// CanaryValues are the values of testdata/canary.txtar that must never be
// published.
var CanaryValues = []string{
	"AKIAZ3MSJV4WWNKWW5FG", "q8Xv2Lm9Rt4Wz7Pk1Ny6Bc3Hd5Jf0Gs8Ua2Qe4Vi", "xoxb-2493741023-1934718234012-Fh3kLm9QpZx2Wv8Ty6Rb4Nc1",
	"hunter2-canary-Prod-7731", "sk_live_51Hc8Qm2Zx7Lp4Rv9Tn3Wb6Ky", "Canary5ecretPw77", "ghp_Q7wE2rT9yU4iO1pA6sD3fG8hJ5kL0zXcVbNm",
}

func TestReportCanary(t *testing.T) {
	t.Parallel()
	root, files := canary(t)
	key := files["deploy/id_rsa"]
	keyLines := strings.Split(strings.TrimSpace(key), "\n")
	body := strings.Join(keyLines[1:len(keyLines)-1], "")
	env := files[".env"]
	tests := []struct {
		name, in  string
		leaks     []string
		wantNotes []string
	}{
		{"values pasted in prose", "The password is hunter2-canary-Prod-7731 and the AWS secret q8Xv2Lm9Rt4Wz7Pk1Ny6Bc3Hd5Jf0Gs8Ua2Qe4Vi.",
			[]string{"hunter2-canary-Prod-7731", "q8Xv2Lm9Rt4Wz7Pk1Ny6Bc3Hd5Jf0Gs8Ua2Qe4Vi"}, []string{"values redacted"}},
		{"key pasted without its armour", "Here:\n\n" + body, []string{body[:40], body[len(body)-40:]}, []string{"redacted"}},
		{"key split over list items", "- " + strings.Join(keyLines[1:4], "\n- "), []string{keyLines[1], keyLines[2], keyLines[3]}, []string{"redacted"}},
		{"password split in two", "first half `hunter2-cana`\n> `ry-Prod-7731`", []string{"hunter2-cana"}, []string{"secret-file-value"}},
		{"env base64-encoded", "encoded: " + base64.StdEncoding.EncodeToString([]byte(env)), []string{base64.StdEncoding.EncodeToString([]byte(env))[:30]}, []string{"redacted"}},
		{"key base64-encoded", "encoded: " + base64.StdEncoding.EncodeToString([]byte(key)), []string{base64.StdEncoding.EncodeToString([]byte(key))[:30]}, []string{"redacted"}},
		{"password hex-encoded", "hex: " + hex.EncodeToString([]byte("hunter2-canary-Prod-7731")), []string{hex.EncodeToString([]byte("hunter2-canary-Prod-7731"))[:24]}, []string{"secret-file-value"}},
		{"token in a link URL", "[docs](https://example.com/?t=ghp_Q7wE2rT9yU4iO1pA6sD3fG8hJ5kL0zXcVbNm)", []string{"ghp_Q7wE2rT9yU4iO1pA6sD3fG8hJ5kL0zXcVbNm"}, []string{"redacted"}},
		{"quote of the key file cut", "Summary.\n\nFrom deploy/id_rsa:1:\n\n```\n" + key + "```\n\n## Risks\n\nnone", []string{"BEGIN RSA", "## Risks"}, []string{"cut here", "deploy/id_rsa"}},
		{"secret cut in two by a label", "| key | value |\n|---|---|\n| secret | q8Xv2Lm9Rt4Wz7Pk1Ny6Bc3H |\n| (cont) | d5Jf0Gs8Ua2Qe4Vi |",
			[]string{"q8Xv2Lm9Rt4Wz7Pk", "d5Jf0Gs8Ua2Qe4Vi"}, []string{"secret-file-value"}},
		{"prefix of a password", "it starts hunter2-canary-Prod-…", []string{"hunter2-canary-Prod"}, []string{"secret-file-value"}},
		{"value lower-cased", "Search terms: sms, akiaz3msjv4wwnkww5fg, send", []string{"akiaz3msjv4wwnkww5fg"}, []string{"secret-file-value"}},
		{"names of the settings untouched", "Reads os.Getenv(\"AWS_SECRET_ACCESS_KEY\"), SLACK_BOT_TOKEN and DB_PASSWORD in notify/sms.go:7; production api_key.", nil, nil},
		{"clean report untouched", "# Scoping: SMS sent twice\n\nSend at notify/sms.go:7.", nil, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Report(tc.in, Options{Root: root})
			if err != nil {
				t.Fatal(err)
			}
			for _, l := range tc.leaks {
				if strings.Contains(res.Markdown, l) {
					t.Errorf("report still holds %q:\n%s", l, res.Markdown)
				}
			}
			for _, v := range CanaryValues {
				if strings.Contains(res.Markdown, v) {
					t.Errorf("report holds canary %q:\n%s", v, res.Markdown)
				}
			}
			for _, w := range tc.wantNotes {
				if !strings.Contains(res.Markdown, w) {
					t.Errorf("report lacks %q:\n%s", w, res.Markdown)
				}
			}
			if tc.wantNotes == nil && res.Markdown != tc.in {
				t.Errorf("a clean report changed:\n%s", res.Markdown)
			}
		})
	}
}

func TestReportUnreadableRoot(t *testing.T) {
	t.Parallel()
	_, err := Report("x", Options{Root: filepath.Join(t.TempDir(), "gone")})
	if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), "gone") {
		t.Errorf("Report on a missing checkout: err %v, want one naming it", err)
	}
}

// TestReportValuesGiven: a caller that has read the checkout's
// secret-file values already (for the egress filter) hands them over, and
// Report redacts them without walking the checkout again: a checkout gone
// since is no error, and a value the caller read is redacted although no
// file holds it any more.
func TestReportValuesGiven(t *testing.T) {
	t.Parallel()
	gone := filepath.Join(t.TempDir(), "gone")
	res, err := Report("The token is Zq81-canary-Lw44-value here.", Options{Root: gone, Values: []string{"Zq81canaryLw44value"}})
	if err != nil {
		t.Fatalf("Report with the values given walked the checkout: %v", err)
	}
	if strings.Contains(res.Markdown, "Zq81-canary-Lw44") || res.Redacted[egress.ValueRule] == 0 {
		t.Errorf("the value given was not redacted: %q (%v)", res.Markdown, res.Redacted)
	}
}

// FuzzReport: whatever the report, Report does not fail without a
// checkout, and what it returns passes Check, notes included.
func FuzzReport(f *testing.F) {
	for _, s := range []string{"see .env:1\n```\nA=B\n```", "From deploy/id_rsa:\n\n    key", "@x <y> [z](javascript:1) ghp_Q7wE2rT9yU4iO1pA6sD3fG8hJ5kL0zXcVbNm", "#1 o/r#2 GH-3 https://github.com/o/r/issues/4 `#5`"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		res, err := Report(s, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if p := Check(res.Markdown); len(p) > 0 {
			t.Fatalf("Report(%q) leaves %v:\n%s", s, p, res.Markdown)
		}
	})
}

func TestReportCapped(t *testing.T) {
	t.Parallel()
	md := strings.Repeat("A line of the report about notify.Send.\n", 3000) // 120 KB
	res, err := Report(md, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Markdown) > MaxBytes+200 || !strings.HasSuffix(res.Markdown, "> Note: The report was longer than 60 KiB; the rest was cut.") {
		t.Errorf("a %d-byte report published as %d bytes, ending %q", len(md), len(res.Markdown), res.Markdown[len(res.Markdown)-80:])
	}
}

// TestPublisherText: an issue quoted in a report's JSON is published like
// a report (secret-file values and secrets redacted, sanitised, other
// repositories' references neutralised) but without notes; a long one ends
// with a marker.
func TestPublisherText(t *testing.T) {
	t.Parallel()
	root, _ := canary(t)
	p, err := NewPublisher(Options{Root: root, Repo: "acme/shop"})
	if err != nil {
		t.Fatal(err)
	}
	in := "# SMS @org/team <img src=x>\n\nthe password is hunter2-canary-Prod-7731, see other/x#3 and #4"
	got := p.Text(in)
	for _, bad := range []string{"hunter2-canary-Prod-7731", "@org/", "<img", "x#3", "Note:"} {
		if strings.Contains(got, bad) {
			t.Errorf("Text(%q) = %q, holds %q", in, got, bad)
		}
	}
	if !strings.Contains(got, "see other/x#"+zwj+"3 and #4") {
		t.Errorf("Text(%q) = %q: the references are not as expected", in, got)
	}
	if pr := CheckFor(got, "acme/shop"); len(pr) > 0 {
		t.Errorf("Text(%q) leaves %v", in, pr)
	}
	long := p.Text(strings.Repeat("a line of the issue\n", MaxBytes/10))
	if len(long) > MaxBytes+100 || !strings.HasSuffix(long, "is left out)") {
		t.Errorf("a long text is published as %d bytes ending %q", len(long), long[len(long)-40:])
	}
}
