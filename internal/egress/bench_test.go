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
