package adf

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// Node is one ADF node. A document is the Node of type "doc" with Version 1.
// Attrs and mark attributes hold JSON values as encoding/json decodes them
// (string, float64, bool, map[string]any, []any).
type Node struct {
	Type    string         `json:"type"`
	Version int            `json:"version,omitempty"` // 1 on the doc node only
	Attrs   map[string]any `json:"attrs,omitempty"`
	// Content is omitted when nil; the doc node always carries one (possibly
	// empty), as the ADF schema requires.
	Content []*Node `json:"content,omitzero"`
	Text    string  `json:"text,omitempty"`
	Marks   []Mark  `json:"marks,omitempty"`
}

// Mark is a text formatting mark: strong, em, code, strike, link (attrs.href),
// underline, textColor, subsup.
type Mark struct {
	Type  string         `json:"type"`
	Attrs map[string]any `json:"attrs,omitempty"`
}

// NewDoc returns an empty document.
func NewDoc() *Node { return &Node{Type: "doc", Version: 1, Content: []*Node{}} }

// Parse decodes an ADF document as Jira returns it. A JSON null or empty
// input is an empty document.
func Parse(b []byte) (*Node, error) {
	var n *Node
	if err := json.Unmarshal(b, &n); err != nil {
		return nil, fmt.Errorf("decode ADF document: %w", err)
	}
	if n == nil {
		return NewDoc(), nil
	}
	if n.Type != "doc" {
		return nil, fmt.Errorf("decode ADF document: top node is %q, want \"doc\"", n.Type)
	}
	return n, nil
}

// PlainText returns the plain text of n and its descendants, without formatting.
func (n *Node) PlainText() string {
	var b strings.Builder
	var walk func(*Node)
	walk = func(n *Node) {
		if n == nil {
			return
		}
		b.WriteString(n.Text)
		for _, c := range n.Content {
			walk(c)
		}
	}
	walk(n)
	return b.String()
}

// Node groups for the structural rules.
var (
	// inlineTypes may appear in paragraphs and headings.
	inlineTypes = []string{"text", "hardBreak", "mention", "emoji", "inlineCard", "date", "status"}
	// docBlocks may appear at the top level and in table cells.
	docBlocks = []string{"paragraph", "heading", "bulletList", "orderedList", "codeBlock", "blockquote", "rule", "table", "panel"}
	// quoteBlocks may appear in a blockquote.
	quoteBlocks = []string{"paragraph", "bulletList", "orderedList", "codeBlock"}
	// itemFirst may start a list item; itemBlocks may follow.
	itemFirst  = []string{"paragraph", "codeBlock"}
	itemBlocks = []string{"paragraph", "bulletList", "orderedList", "codeBlock"}
	// cellBlocks may appear in a table cell.
	cellBlocks = []string{"paragraph", "heading", "bulletList", "orderedList", "codeBlock", "blockquote", "rule", "panel"}
	markTypes  = []string{"strong", "em", "code", "strike", "link", "underline", "textColor", "subsup"}
)

// Validate checks doc against the structural rules of ADF that relay's
// output must follow (the subset of the ADF JSON schema for the nodes and
// marks relay writes). It returns the first violation, with its path.
func Validate(doc *Node) error {
	if doc == nil || doc.Type != "doc" {
		return fmt.Errorf("adf: top node must be a doc")
	}
	if doc.Version != 1 {
		return fmt.Errorf("adf: doc version is %d, want 1", doc.Version)
	}
	if doc.Content == nil {
		return fmt.Errorf("adf: doc has no content array")
	}
	return validateChildren("doc", doc, docBlocks, nil)
}

// validateChildren checks that every child of n has an allowed type (first,
// when given, restricts the first child) and is itself valid.
func validateChildren(path string, n *Node, allowed, first []string) error {
	for i, c := range n.Content {
		p := fmt.Sprintf("%s/%d", path, i)
		if c == nil {
			return fmt.Errorf("adf: %s: null node", p)
		}
		ok := allowed
		if i == 0 && first != nil {
			ok = first
		}
		if !slices.Contains(ok, c.Type) {
			return fmt.Errorf("adf: %s: %s not allowed in %s (allowed: %s)", p, c.Type, n.Type, strings.Join(ok, ", "))
		}
		if err := validateNode(p+"("+c.Type+")", c); err != nil {
			return err
		}
	}
	return nil
}

func validateNode(path string, n *Node) error {
	if n.Type != "text" && (n.Text != "" || len(n.Marks) > 0) {
		return fmt.Errorf("adf: %s: only text nodes carry text and marks", path)
	}
	if n.Version != 0 {
		return fmt.Errorf("adf: %s: only the doc carries a version", path)
	}
	switch n.Type {
	case "text":
		return validateText(path, n)
	case "paragraph":
		return validateChildren(path, n, inlineTypes, nil)
	case "heading":
		if l, ok := n.Attrs["level"].(int); !ok || l < 1 || l > 6 {
			if f, ok := n.Attrs["level"].(float64); !ok || f < 1 || f > 6 || f != float64(int(f)) {
				return fmt.Errorf("adf: %s: heading level must be 1..6", path)
			}
		}
		return validateChildren(path, n, inlineTypes, nil)
	case "bulletList", "orderedList":
		if len(n.Content) == 0 {
			return fmt.Errorf("adf: %s: a list needs at least one item", path)
		}
		return validateChildren(path, n, []string{"listItem"}, nil)
	case "listItem":
		if len(n.Content) == 0 {
			return fmt.Errorf("adf: %s: a list item needs content", path)
		}
		return validateChildren(path, n, itemBlocks, itemFirst)
	case "codeBlock":
		for i, c := range n.Content {
			if c == nil || c.Type != "text" || len(c.Marks) > 0 {
				return fmt.Errorf("adf: %s/%d: a code block holds only unmarked text", path, i)
			}
			if err := validateText(fmt.Sprintf("%s/%d", path, i), c); err != nil {
				return err
			}
		}
		return nil
	case "blockquote":
		if len(n.Content) == 0 {
			return fmt.Errorf("adf: %s: a blockquote needs content", path)
		}
		return validateChildren(path, n, quoteBlocks, nil)
	case "rule", "hardBreak":
		if len(n.Content) > 0 {
			return fmt.Errorf("adf: %s: %s has no content", path, n.Type)
		}
		return nil
	case "table":
		if len(n.Content) == 0 {
			return fmt.Errorf("adf: %s: a table needs a row", path)
		}
		return validateChildren(path, n, []string{"tableRow"}, nil)
	case "tableRow":
		if len(n.Content) == 0 {
			return fmt.Errorf("adf: %s: a table row needs a cell", path)
		}
		return validateChildren(path, n, []string{"tableHeader", "tableCell"}, nil)
	case "tableHeader", "tableCell":
		if len(n.Content) == 0 {
			return fmt.Errorf("adf: %s: a table cell needs content", path)
		}
		return validateChildren(path, n, cellBlocks, nil)
	case "panel":
		return validateChildren(path, n, quoteBlocks, nil)
	case "mention", "emoji", "inlineCard", "date", "status":
		return nil
	}
	return fmt.Errorf("adf: %s: unknown node type %q", path, n.Type)
}

func validateText(path string, n *Node) error {
	if n.Text == "" {
		return fmt.Errorf("adf: %s: text nodes must not be empty", path)
	}
	if len(n.Content) > 0 {
		return fmt.Errorf("adf: %s: text nodes have no content", path)
	}
	seen := map[string]bool{}
	for _, m := range n.Marks {
		if !slices.Contains(markTypes, m.Type) {
			return fmt.Errorf("adf: %s: unknown mark %q", path, m.Type)
		}
		if seen[m.Type] {
			return fmt.Errorf("adf: %s: mark %q twice", path, m.Type)
		}
		seen[m.Type] = true
		if m.Type == "link" {
			if href, _ := m.Attrs["href"].(string); href == "" {
				return fmt.Errorf("adf: %s: link mark without href", path)
			}
		}
	}
	if seen["code"] {
		for t := range seen {
			if t != "code" && t != "link" {
				return fmt.Errorf("adf: %s: the code mark combines only with link, not %s", path, t)
			}
		}
	}
	return nil
}
