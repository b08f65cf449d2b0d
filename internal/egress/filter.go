package egress

import (
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/spf13/viper"
	"github.com/zricethezav/gitleaks/v8/config"
	"github.com/zricethezav/gitleaks/v8/detect"
	"github.com/zricethezav/gitleaks/v8/report"

	"github.com/relayhq/relay/internal/redact"
)

// Options configure a [Filter].
type Options struct {
	// SecretFiles replaces [DefaultSecretFiles] when non-nil.
	SecretFiles []string
	// ExtraSecretFiles are added to the secret-bearing file patterns.
	ExtraSecretFiles []string
	// AllowFiles are patterns of files the operator allows to be indexed
	// and read although a secret-file pattern matches them.
	AllowFiles []string
}

// Filter redacts secrets from text that leaves relay and holds the
// secret-bearing file policy. It is safe for concurrent use.
type Filter struct {
	det   *detect.Detector
	files *FilePolicy

	mu     sync.Mutex
	counts map[string]int64
	total  atomic.Int64

	valMu  sync.Mutex        // serialises AddValues
	valSet map[string]string // lower-cased value → the value as added
	values atomic.Pointer[Values]
}

// AddValues adds literal values (the values of a checkout's secret-bearing
// files, as [SecretValues] returns them) that [Filter.Redact] replaces from
// then on, under the rule "secret-file-value", wherever a text holds them:
// in any case, spread over other characters, or in pieces (see
// [Values.Replace]). Values shorter than 12 letters and digits are ignored;
// a value already added is not added again. The matcher is compiled once
// per call that adds something, and Redact never waits for it. Values are
// never removed: a process that serves several checkouts over-redacts
// across them, which is the safe direction.
func (f *Filter) AddValues(vals []string) {
	f.valMu.Lock()
	defer f.valMu.Unlock()
	if f.valSet == nil {
		f.valSet = map[string]string{}
	}
	added := false
	for _, v := range vals {
		v = alnum(v)
		// The case is kept: fragments are cut only from a value that
		// mixes upper- and lower-case letters and digits.
		if k := strings.ToLower(v); len(v) >= minValue && f.valSet[k] == "" {
			f.valSet[k] = v
			added = true
		}
	}
	if !added {
		return
	}
	all := make([]string, 0, len(f.valSet))
	for _, v := range f.valSet {
		all = append(all, v)
	}
	sort.Strings(all)
	f.values.Store(CompileValues(all))
}

// New builds a filter with gitleaks' default rules and the file policy of o.
func New(o Options) (*Filter, error) {
	det, err := newDetector()
	if err != nil {
		return nil, err
	}
	files, err := NewFilePolicy(o.SecretFiles, o.ExtraSecretFiles, o.AllowFiles)
	if err != nil {
		return nil, err
	}
	return &Filter{det: det, files: files, counts: map[string]int64{}}, nil
}

// newDetector loads gitleaks' embedded default configuration into a viper
// instance of its own (detect.NewDetectorDefaultConfig uses viper's global
// one, which is not safe to share).
func newDetector() (*detect.Detector, error) {
	v := viper.New()
	v.SetConfigType("toml")
	if err := v.ReadConfig(strings.NewReader(config.DefaultConfig)); err != nil {
		return nil, fmt.Errorf("read the secret scanner's rules: %w", err)
	}
	var vc config.ViperConfig
	if err := v.Unmarshal(&vc); err != nil {
		return nil, fmt.Errorf("decode the secret scanner's rules: %w", err)
	}
	cfg, err := vc.Translate()
	if err != nil {
		return nil, fmt.Errorf("compile the secret scanner's rules: %w", err)
	}
	d := detect.NewDetector(cfg)
	// Percent-, base64- and hex-encoded secrets (a token in a URL's query,
	// a fixture) are decoded and scanned too; two passes see through one
	// encoding inside another. See encodedSpans for what is replaced.
	d.MaxDecodeDepth = maxDecodeDepth
	return d, nil
}

// maxDecodeDepth is how many decoding passes gitleaks makes over a text.
const maxDecodeDepth = 2

var (
	defaultOnce   sync.Once
	defaultFilter *Filter
	defaultErr    error
)

// Default returns the process-wide filter with the default options, built on
// first use. It panics only if gitleaks' embedded rules fail to compile,
// which a test of this package rules out.
func Default() *Filter {
	defaultOnce.Do(func() { defaultFilter, defaultErr = New(Options{}) })
	if defaultErr != nil {
		panic(defaultErr)
	}
	return defaultFilter
}

// Files returns the filter's secret-bearing file policy.
func (f *Filter) Files() *FilePolicy { return f.files }

// Result is a redacted text and what was redacted in it.
type Result struct {
	Text   string
	Counts map[string]int // rule → values redacted
}

// N returns how many values were redacted.
func (r Result) N() int {
	n := 0
	for _, c := range r.Counts {
		n += c
	}
	return n
}

// Redact replaces every secret in s with "[redacted: <rule>]". A nil
// filter redacts only URL credentials.
func (f *Filter) Redact(s string) Result {
	res := Result{Text: s}
	if s == "" {
		return res
	}
	if f != nil {
		vt, vn := f.values.Load().Replace(s)
		res = f.redactFindings(vt)
		if vn > 0 {
			res.add(ValueRule, vn)
		}
		if t, n := cutOpenKeys(res.Text); n > 0 {
			res.Text = t
			res.add("private-key", n)
		}
	}
	if t := redact.Text(res.Text); t != res.Text {
		n := strings.Count(t, redact.Mask) - strings.Count(res.Text, redact.Mask)
		if n < 1 {
			n = 1
		}
		res.Text = t
		res.add("url-credentials", n)
	}
	if f != nil && len(res.Counts) > 0 {
		f.mu.Lock()
		for k, v := range res.Counts {
			f.counts[k] += int64(v)
			f.total.Add(int64(v))
		}
		f.mu.Unlock()
	}
	return res
}

// String returns s redacted; the counts go only to the filter's totals.
func (f *Filter) String(s string) string { return f.Redact(s).Text }

func (r *Result) add(rule string, n int) {
	if r.Counts == nil {
		r.Counts = map[string]int{}
	}
	r.Counts[rule] += n
}

// redactFindings replaces the values gitleaks finds. Each finding's secret
// (or, when the rule captures none, its whole match) is replaced wherever
// it occurs, longest first, so a value quoted twice is redacted twice and a
// secret inside a longer one does not leave the rest behind.
func (f *Filter) redactFindings(s string) Result {
	res := Result{Text: s}
	var findings []report.Finding
	var encoded []repl
	for _, c := range chunks(s, chunkSize) {
		fs := f.det.DetectString(c)
		findings = append(findings, fs...)
		encoded = append(encoded, f.encodedSpans(c, fs)...)
		if quoted(c) {
			for _, u := range chunks(unescape(c), chunkSize) {
				findings = append(findings, f.det.DetectString(u)...)
			}
		}
	}
	if len(findings) == 0 {
		return res
	}
	var rs []repl
	seen := map[string]bool{}
	for _, r := range encoded {
		if !seen[r.value] && strings.Contains(s, r.value) {
			seen[r.value] = true
			rs = append(rs, r)
		}
	}
	for _, fd := range findings {
		for _, v := range []string{fd.Secret, fd.Match} {
			// A value cut from JSON-escaped text may end in the backslash
			// of an escape (\" or \n); removing it would break the JSON.
			v = strings.TrimRight(strings.TrimSpace(v), `\`)
			if !strings.Contains(s, v) {
				v = escape(v) // found in the unescaped view
			}
			if len(v) < 4 || !strings.Contains(s, v) {
				continue
			}
			if !seen[v] {
				seen[v] = true
				rs = append(rs, repl{v, fd.RuleID})
			}
			break
		}
	}
	sort.Slice(rs, func(i, j int) bool {
		if len(rs[i].value) != len(rs[j].value) {
			return len(rs[i].value) > len(rs[j].value)
		}
		return rs[i].value < rs[j].value
	})
	out := s
	for _, r := range rs {
		n := strings.Count(out, r.value)
		if n == 0 {
			continue
		}
		out = strings.ReplaceAll(out, r.value, "[redacted: "+r.rule+"]")
		res.add(r.rule, n)
	}
	res.Text = out
	return res
}

// repl is a value to replace and the rule that found it.
type repl struct{ value, rule string }

// encodedSpans returns, for each finding of fs that gitleaks made in
// decoded text, the encoded text in text it came from: the decoded
// secret is not in the text, so it is the encoded form that is replaced.
func (f *Filter) encodedSpans(text string, fs []report.Finding) []repl {
	var out []repl
	var perLine []report.Finding
	lined := false
	for _, fd := range fs {
		if !decoded(fd) {
			continue
		}
		if span := columnSpan(fd); span != "" && strings.Contains(text, span) && f.decodesTo(span, fd.Secret) {
			out = append(out, repl{span, fd.RuleID})
			continue
		}
		// gitleaks places a finding by the newlines of the decoded text,
		// which an encoding on an earlier line shifts; one line at a time
		// there is no earlier line.
		if !lined {
			lined = true
			for _, l := range strings.Split(text, "\n") {
				perLine = append(perLine, f.det.DetectString(l)...)
			}
		}
		for _, lf := range perLine {
			if span := columnSpan(lf); span != "" && decoded(lf) && lf.Secret == fd.Secret && strings.Contains(text, span) {
				out = append(out, repl{span, fd.RuleID})
			}
		}
	}
	return out
}

// decoded reports whether gitleaks made the finding in decoded text.
func decoded(fd report.Finding) bool {
	for _, t := range fd.Tags {
		if strings.HasPrefix(t, "decoded:") {
			return true
		}
	}
	return false
}

// decodesTo reports whether gitleaks finds secret in span on its own.
func (f *Filter) decodesTo(span, secret string) bool {
	for _, fd := range f.det.DetectString(span) {
		if fd.Secret == secret {
			return true
		}
	}
	return false
}

// columnSpan is the text of fd.Line between its columns (1-based, the end
// inclusive, in bytes), "" when they do not fit one line or the cut is not
// valid UTF-8.
func columnSpan(fd report.Finding) string {
	if fd.StartLine != fd.EndLine || fd.StartColumn < 1 || fd.EndColumn > len(fd.Line) || fd.StartColumn > fd.EndColumn {
		return ""
	}
	span := strings.TrimSpace(fd.Line[fd.StartColumn-1 : fd.EndColumn])
	if len(span) < 4 || !utf8.ValidString(span) {
		return ""
	}
	return span
}

// Stats returns the values redacted so far, per rule, and their total.
func (f *Filter) Stats() (perRule map[string]int64, total int64) {
	if f == nil {
		return nil, 0
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return maps.Clone(f.counts), f.total.Load()
}

// chunkSize is the text gitleaks scans at once (see chunks).
var chunkSize = 4 << 10 // a variable for the benchmark that compares whole texts

// chunks cuts s into pieces of about size bytes at line ends, never inside
// a PEM block ("-----BEGIN" … "-----END"), so no finding is cut in two.
//
// DESIGN: gitleaks runs a rule's regular expression over the whole text
// it is given once any of the rule's keywords occurs anywhere in it; on
// 1 MB of source nearly every keyword occurs somewhere, so whole texts
// cost about 1.2 s per MB. Lines are the unit of every rule but the
// private-key one, so scanning a few KB at a time confines each regular
// expression to the pieces that hold its keyword (BENCHMARKS.md).
func chunks(s string, size int) []string {
	if len(s) <= size {
		return []string{s}
	}
	var out []string
	for len(s) > 0 {
		if len(s) <= size {
			out = append(out, s)
			break
		}
		cut := strings.IndexByte(s[size:], '\n')
		if cut < 0 {
			out = append(out, s)
			break
		}
		cut += size + 1
		head := s[:cut]
		if b := strings.LastIndex(head, "-----BEGIN"); b >= 0 && !strings.Contains(head[b:], "-----END") {
			if e := strings.Index(s[cut:], "-----END"); e >= 0 && e < maxHeld {
				end := cut + e
				if nl := strings.IndexByte(s[end:], '\n'); nl >= 0 {
					cut = end + nl + 1
				} else {
					cut = len(s)
				}
			}
		}
		out = append(out, s[:cut])
		s = s[cut:]
	}
	return out
}

// quoted reports whether c reads as text quoted inside JSON strings: more
// escaped newlines and quotes than real newlines. Source code, whose string
// literals hold a few escapes, is not scanned twice for them.
func quoted(c string) bool {
	esc := strings.Count(c, `\n`) + strings.Count(c, `\"`)
	return esc > 0 && esc >= strings.Count(c, "\n")
}

// unescape returns s with the escapes of a JSON or Go string undone
// (\" \n \t \\), so a secret quoted inside JSON (a tool call's
// arguments, relay's --json output) is seen as the rules expect it: the
// generic rules look for an assignment followed by a quote, and a private
// key for its lines.
func unescape(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	return jsonUnescaper.Replace(s)
}

var jsonUnescaper = strings.NewReplacer(`\"`, `"`, `\n`, "\n", `\t`, "\t", `\r`, "\r", `\\`, `\`, `\/`, "/")

// escape is the inverse of unescape for a value found in the unescaped
// view, to find it in the original text.
func escape(v string) string {
	b, err := json.Marshal(v)
	if err != nil {
		return v
	}
	return strings.TrimSuffix(strings.TrimPrefix(string(b), `"`), `"`)
}

// cutOpenKeys redacts what is left of private keys that gitleaks cannot
// see: its rule needs both the BEGIN and the END line, so the top of a key
// (a read that stops early) or its tail (grep's context lines before the
// END line) would pass. From a "-----BEGIN … PRIVATE KEY-----" marker
// forwards, and from an "-----END … PRIVATE KEY-----" marker backwards,
// the marker becomes "[redacted: private-key]" and the base64 at the end
// of each adjacent line goes; a prefix such as grep's "path-12-" stays,
// a line that held only key material is dropped. This supplements the
// rules for partial text rather than replacing them, so it is these few
// lines and not a rule list.
func cutOpenKeys(s string) (string, int) {
	if !strings.Contains(s, "PRIVATE KEY-----") {
		return s, 0
	}
	lines := strings.SplitAfter(s, "\n")
	drop := make([]bool, len(lines))
	n := 0
	body := func(j int) bool {
		prefix, ok := keyBody(lines[j])
		if !ok {
			return false
		}
		if strings.TrimSpace(prefix) == "" {
			drop[j] = true
		} else {
			lines[j] = prefix + "…\n"
		}
		return true
	}
	for i := range lines {
		m := keyMarkerRE.FindStringIndex(lines[i])
		if m == nil {
			continue
		}
		begin := strings.HasPrefix(lines[i][m[0]:], "-----BEGIN")
		lines[i] = lines[i][:m[0]] + "[redacted: private-key]" + lines[i][m[1]:]
		n++
		if begin {
			for j := i + 1; j < len(lines); j++ {
				if e := keyMarkerRE.FindStringIndex(lines[j]); e != nil && strings.HasPrefix(lines[j][e[0]:], "-----END") {
					lines[j] = lines[j][:e[0]] + lines[j][e[1]:]
					if strings.TrimSpace(lines[j]) == "" {
						drop[j] = true
					}
					break
				}
				if !body(j) {
					break
				}
			}
			continue
		}
		for j := i - 1; j >= 0 && !drop[j] && body(j); j-- {
		}
	}
	var b strings.Builder
	for i, l := range lines {
		if !drop[i] {
			b.WriteString(l)
		}
	}
	return b.String(), n
}

// keyMarkerRE finds a PEM private key's BEGIN or END marker.
var keyMarkerRE = regexp.MustCompile(`-----(?:BEGIN|END) [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----`)

// keyBody reports whether line ends in key material (16 or more base64
// characters, or a PEM header such as Proc-Type), and returns what comes
// before it.
func keyBody(line string) (prefix string, ok bool) {
	t := strings.TrimRight(line, " \t\r\n\"'`,+;")
	for _, h := range []string{"Proc-Type:", "DEK-Info:"} {
		if i := strings.Index(t, h); i >= 0 {
			return t[:i], true
		}
	}
	i := len(t)
	for i > 0 && strings.IndexByte(base64Chars, t[i-1]) >= 0 {
		i--
	}
	if len(t)-i < 16 {
		return "", false
	}
	return t[:i], true
}

const base64Chars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/="
