package egress

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// ordinarySource is about 1 MB of Go source from the standard library.
func ordinarySource(b *testing.B) string {
	var sb strings.Builder
	goroot, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		b.Skipf("no go command: %v", err)
	}
	dir := filepath.Join(strings.TrimSpace(string(goroot)), "src", "net", "http")
	ents, err := os.ReadDir(dir)
	if err != nil {
		b.Skipf("no Go sources: %v", err)
	}
	for sb.Len() < 1<<20 {
		for _, e := range ents {
			if !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
				continue
			}
			data, err := os.ReadFile(filepath.Join(dir, e.Name()))
			if err != nil {
				b.Fatal(err)
			}
			sb.Write(data)
			if sb.Len() >= 1<<20 {
				break
			}
		}
	}
	return sb.String()[:1<<20]
}

// secretDense is about 1 MB of configuration lines, one canary in every
// eight lines.
func secretDense() string {
	var sb strings.Builder
	for i := 0; sb.Len() < 1<<20; i++ {
		if i%8 == 0 {
			sb.WriteString(canaries[(i/8)%len(canaries)].text)
			continue
		}
		sb.WriteString("log_level: info\nlisten: 127.0.0.1:8080\n")
	}
	return sb.String()[:1<<20]
}

func benchRedact(b *testing.B, text string) {
	f := Default()
	b.SetBytes(int64(len(text)))
	b.ResetTimer()
	for b.Loop() {
		f.Redact(text)
	}
}

// BenchmarkRedactSource measures the filter on ordinary source (MB/s).
func BenchmarkRedactSource(b *testing.B) { benchRedact(b, ordinarySource(b)) }

// BenchmarkRedactSecretDense measures it on secret-dense text.
func BenchmarkRedactSecretDense(b *testing.B) { benchRedact(b, secretDense()) }

func BenchmarkNew(b *testing.B) {
	for b.Loop() {
		if _, err := New(Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRedactSourceWhole is BenchmarkRedactSource with the text given
// to gitleaks whole, as before it was cut in pieces (DESIGN in chunks).
func BenchmarkRedactSourceWhole(b *testing.B) {
	defer func(n int) { chunkSize = n }(chunkSize)
	chunkSize = 1 << 30
	benchRedact(b, ordinarySource(b))
}

// BenchmarkRedactLogLine measures one short text, the size of a log
// record's message or attribute.
func BenchmarkRedactLogLine(b *testing.B) {
	benchRedact(b, "search index: files chunked and tokenized path=internal/sms/sender.go dur=12.5ms")
}

// BenchmarkRedactSourceNoDecode is BenchmarkRedactSource without gitleaks'
// decoding passes (percent, base64, hex), as before they were turned on.
func BenchmarkRedactSourceNoDecode(b *testing.B) {
	f, err := New(Options{})
	if err != nil {
		b.Fatal(err)
	}
	f.det.MaxDecodeDepth = 0
	text := ordinarySource(b)
	b.SetBytes(int64(len(text)))
	b.ResetTimer()
	for b.Loop() {
		f.Redact(text)
	}
}

// benchValues is a value set the size of a busy checkout's: the values of
// the canary repository's secret-bearing files and of 60 .env lines of
// random keys, with their encodings and parts (SecretValues' output).
func benchValues(b *testing.B) []string {
	var env strings.Builder
	for i := range 60 {
		env.WriteString("KEY_" + strings.Repeat("X", i%5) + "=")
		for j := range 32 {
			env.WriteByte(base64Chars[(i*131+j*17+j*j)%62])
		}
		env.WriteString("\n")
	}
	vals := fileValues(env.String())
	for _, c := range canaries {
		vals = append(vals, fileValues(c.text)...)
	}
	return vals
}

// BenchmarkValuesSource measures the value matcher alone on ordinary
// source (Values.Replace; the text holds none of the values).
func BenchmarkValuesSource(b *testing.B) {
	vs := CompileValues(benchValues(b))
	text := ordinarySource(b)
	b.SetBytes(int64(len(text)))
	b.ResetTimer()
	for b.Loop() {
		vs.Replace(text)
	}
	b.ReportMetric(float64(len(vs.values)), "values")
}

// BenchmarkValuesSourceNaive is BenchmarkValuesSource with the matcher
// Values replaced: each value searched for in turn, fragments by a map.
func BenchmarkValuesSourceNaive(b *testing.B) {
	vals := benchValues(b)
	text := ordinarySource(b)
	b.SetBytes(int64(len(text)))
	b.ResetTimer()
	for b.Loop() {
		naiveReplace(text, vals)
	}
}

// BenchmarkRedactSourceValues is BenchmarkRedactSource with the values
// added to the filter, as the CLI and the bot run it.
func BenchmarkRedactSourceValues(b *testing.B) {
	f, err := New(Options{})
	if err != nil {
		b.Fatal(err)
	}
	f.AddValues(benchValues(b))
	text := ordinarySource(b)
	b.SetBytes(int64(len(text)))
	b.ResetTimer()
	for b.Loop() {
		f.Redact(text)
	}
}

// BenchmarkSecretValuesGOROOT measures reading a checkout's values (the
// walk every CLI command pays once) on GOROOT/src, about 10,000 files, a
// few of them secret-bearing test keys.
func BenchmarkSecretValuesGOROOT(b *testing.B) {
	goroot, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		b.Skipf("no go command: %v", err)
	}
	root := filepath.Join(strings.TrimSpace(string(goroot)), "src")
	for b.Loop() {
		vals, err := SecretValues(root, nil)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(len(vals)), "values")
	}
}
