package adf

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/relayhq/relay/internal/testutil"
)

func mustJSON(t testing.TB, v any) string {
	t.Helper()
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return string(b) + "\n"
}

func TestFromMarkdownGolden(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"report", "nested"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			src, err := os.ReadFile(filepath.Join("testdata", name+".md"))
			if err != nil {
				t.Fatal(err)
			}
			doc := FromMarkdown(string(src))
			if err := Validate(doc); err != nil {
				t.Fatalf("invalid ADF: %v", err)
			}
			// What Jira receives is the JSON: it must validate after a round trip too.
			js := mustJSON(t, doc)
			back, err := Parse([]byte(js))
			if err != nil {
				t.Fatal(err)
			}
			if err := Validate(back); err != nil {
				t.Fatalf("invalid ADF after JSON round trip: %v", err)
			}
			testutil.Golden(t, name+".adf.json", js)
			testutil.Golden(t, name+".wiki", Wiki(doc)+"\n")
			testutil.Golden(t, name+".roundtrip.md", ToMarkdown(back)+"\n")
		})
	}
}

func TestToMarkdownGolden(t *testing.T) {
	t.Parallel()
	src, err := os.ReadFile(filepath.Join("testdata", "cloud-description.json"))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	testutil.Golden(t, "cloud-description.md", ToMarkdown(doc)+"\n")
}

func TestFromMarkdownShapes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, md string
		want     *Node
	}{
		{
			name: "empty",
			md:   "",
			want: NewDoc(),
		},
		{
			name: "only an HTML comment",
			md:   "<!-- relay:report -->\n",
			want: NewDoc(),
		},
		{
			name: "code block with language",
			md:   "```python\nprint(1)\n```\n",
			want: &Node{Type: "doc", Version: 1, Content: []*Node{
				{Type: "codeBlock", Attrs: map[string]any{"language": "python"}, Content: []*Node{{Type: "text", Text: "print(1)"}}},
			}},
		},
		{
			name: "bold code keeps only the code mark",
			md:   "**`x`**",
			want: &Node{Type: "doc", Version: 1, Content: []*Node{
				{Type: "paragraph", Content: []*Node{{Type: "text", Text: "x", Marks: []Mark{{Type: "code"}}}}},
			}},
		},
		{
			name: "linked code keeps link and code",
			md:   "[`x`](https://e.com)",
			want: &Node{Type: "doc", Version: 1, Content: []*Node{
				{Type: "paragraph", Content: []*Node{{Type: "text", Text: "x", Marks: []Mark{
					{Type: "link", Attrs: map[string]any{"href": "https://e.com"}}, {Type: "code"},
				}}}},
			}},
		},
		{
			name: "list item starting with a nested list gets an empty paragraph",
			md:   "- - a\n",
			want: &Node{Type: "doc", Version: 1, Content: []*Node{
				{Type: "bulletList", Content: []*Node{{Type: "listItem", Content: []*Node{
					{Type: "paragraph"},
					{Type: "bulletList", Content: []*Node{{Type: "listItem", Content: []*Node{
						{Type: "paragraph", Content: []*Node{{Type: "text", Text: "a"}}},
					}}}},
				}}}},
			}},
		},
		{
			name: "soft break is a space",
			md:   "a\nb",
			want: &Node{Type: "doc", Version: 1, Content: []*Node{
				{Type: "paragraph", Content: []*Node{{Type: "text", Text: "a b"}}},
			}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := FromMarkdown(tt.md)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("FromMarkdown(%q) (-want +got):\n%s", tt.md, diff)
			}
			if err := Validate(got); err != nil {
				t.Errorf("invalid: %v", err)
			}
		})
	}
}

func TestValidateRejects(t *testing.T) {
	t.Parallel()
	p := func(c ...*Node) *Node { return &Node{Type: "paragraph", Content: c} }
	txt := func(s string, m ...Mark) *Node { return &Node{Type: "text", Text: s, Marks: m} }
	doc := func(c ...*Node) *Node { return &Node{Type: "doc", Version: 1, Content: c} }
	tests := []struct {
		name string
		doc  *Node
		want string
	}{
		{"no version", &Node{Type: "doc", Content: []*Node{}}, "version"},
		{"no content array", &Node{Type: "doc", Version: 1}, "no content array"},
		{"empty text", doc(p(txt(""))), "must not be empty"},
		{"code with strong", doc(p(txt("x", Mark{Type: "code"}, Mark{Type: "strong"}))), "combines only with link"},
		{"duplicate mark", doc(p(txt("x", Mark{Type: "em"}, Mark{Type: "em"}))), "twice"},
		{"link without href", doc(p(txt("x", Mark{Type: "link"}))), "without href"},
		{"heading level 7", doc(&Node{Type: "heading", Attrs: map[string]any{"level": 7}}), "level"},
		{"empty list", doc(&Node{Type: "bulletList"}), "at least one item"},
		{"list item starting with a list", doc(&Node{Type: "bulletList", Content: []*Node{{Type: "listItem", Content: []*Node{
			{Type: "bulletList", Content: []*Node{{Type: "listItem", Content: []*Node{p()}}}},
		}}}}), "not allowed in listItem"},
		{"heading in blockquote", doc(&Node{Type: "blockquote", Content: []*Node{{Type: "heading", Attrs: map[string]any{"level": 1}}}}), "not allowed in blockquote"},
		{"marked text in code block", doc(&Node{Type: "codeBlock", Content: []*Node{txt("x", Mark{Type: "strong"})}}), "unmarked text"},
		{"block in paragraph", doc(p(&Node{Type: "rule"})), "not allowed in paragraph"},
		{"unknown node", doc(&Node{Type: "blink"}), "not allowed in doc"},
		{"unknown mark", doc(p(txt("x", Mark{Type: "blink"}))), "unknown mark"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := Validate(tt.doc)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Validate = %v, want an error containing %q", err, tt.want)
			}
		})
	}
}

func TestParseRejects(t *testing.T) {
	t.Parallel()
	if _, err := Parse([]byte(`{"type":"paragraph"}`)); err == nil {
		t.Error("Parse accepted a non-doc top node")
	}
	if _, err := Parse([]byte(`{`)); err == nil {
		t.Error("Parse accepted broken JSON")
	}
	doc, err := Parse([]byte(`null`))
	if err != nil || ToMarkdown(doc) != "" {
		t.Errorf("Parse(null) = %v, %v; want an empty doc", doc, err)
	}
}

// FuzzFromMarkdown holds the converter to its promise: any markdown gives
// valid ADF (before and after JSON), and every renderer accepts it.
func FuzzFromMarkdown(f *testing.F) {
	for _, name := range []string{"report.md", "nested.md"} {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(b))
	}
	for _, s := range []string{"", "- ", "> # h\n> - a\n>   > b", "| a |\n|---|\n| `x` |", "**`a`**[b](<>)", "1. ```\n   x", "<!--", "* * *", "\\", "&#0;", "- | a |\n  |---|"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, md string) {
		doc := FromMarkdown(md)
		if err := Validate(doc); err != nil {
			t.Fatalf("invalid ADF for %q: %v", md, err)
		}
		b, err := json.Marshal(doc)
		if err != nil {
			t.Fatal(err)
		}
		back, err := Parse(b)
		if err != nil {
			t.Fatal(err)
		}
		if err := Validate(back); err != nil {
			t.Fatalf("invalid ADF after JSON for %q: %v", md, err)
		}
		_ = ToMarkdown(back)
		_ = Wiki(back)
	})
}

// FuzzToMarkdown feeds arbitrary JSON to the readers of Jira's ADF: they may
// return an error, never panic.
func FuzzToMarkdown(f *testing.F) {
	b, err := os.ReadFile(filepath.Join("testdata", "cloud-description.json"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	f.Add([]byte(`{"type":"doc","content":[null,{"type":"listItem"},{"type":"table","content":[{"content":[null]}]}]}`))
	f.Add([]byte(`{"type":"doc","content":[{"type":"heading","attrs":{"level":1e300}},{"type":"orderedList","attrs":{"order":"x"}}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		doc, err := Parse(b)
		if err != nil {
			return
		}
		_ = ToMarkdown(doc)
		_ = Wiki(doc)
		_ = doc.PlainText()
	})
}
