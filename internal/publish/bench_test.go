package publish

import (
	"strings"
	"testing"
)

// typicalReport is a scoping report of about 12 KB: headings, a table,
// citations, code blocks, links and mentions.
func typicalReport() string {
	var b strings.Builder
	b.WriteString("# Scoping: Customers receive the same SMS twice\n\n**Size:** M — a few files\n\n## Summary\n\nSend retries at notify/sms.go:4 when the provider is slow; see [the docs](https://example.com/docs) and ask @ada.\n")
	for i := range 40 {
		b.WriteString("\n- `notify.Send` calls `provider.Post` at notify/sms.go:" + strings.Repeat("1", 1+i%3) + " and retries <3 times>.\n\n```go\nfunc Send(to, body string) error {\n\treturn retry(post)\n}\n```\n")
	}
	b.WriteString("\n| component | location | why |\n|---|---|---|\n| notify.Send | notify/sms.go:4 | retries |\n")
	return b.String()
}

// BenchmarkReport measures Report on a typical report, with and without
// reading a checkout's secret-bearing files.
func BenchmarkReport(b *testing.B) {
	md := typicalReport()
	root, _ := canary(b)
	for _, bc := range []struct {
		name string
		o    Options
	}{{"text-only", Options{}}, {"with-checkout", Options{Root: root}}} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(md)))
			for b.Loop() {
				if _, err := Report(md, bc.o); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
