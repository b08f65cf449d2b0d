package workspace

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// Ticket is one backlog entry.
type Ticket struct {
	ID, Title, Body string
	// Ref is the tracker issue (github:owner/name#42, jira:KEY-1) a ticket
	// stands for; batch --queue needs it, plain batch ignores it.
	Ref string
}

// Issue is the ticket's text as an issue: its title as a heading, then
// its body.
func (t Ticket) Issue() string {
	if t.Title == "" {
		return t.Body
	}
	return "# " + t.Title + "\n\n" + t.Body
}

var ticketIDRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$`)

// ReadTickets reads a backlog: .jsonl (one {"id", "title", "body", "ref"}
// object per line, of any length) or .csv (a header row naming the
// columns) by extension. Ids name the report files: 1-128 letters, digits,
// '.', '_' or '-', each once.
func ReadTickets(path string) ([]Ticket, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read tickets: %w", err)
	}
	defer f.Close()
	var ts []Ticket
	switch strings.ToLower(filepath.Ext(path)) {
	case ".jsonl", ".ndjson":
		ts, err = readJSONL(f, path)
	case ".csv":
		ts, err = readCSV(f, path)
	default:
		return nil, configErr(fmt.Errorf("%s: unknown format; name it .jsonl (one {\"id\",\"title\",\"body\"} object per line) or .csv (header id,title,body)", path))
	}
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for _, t := range ts {
		if seen[t.ID] {
			return nil, fmt.Errorf("%s: ticket id %q appears twice; ids name the report files and must be unique", path, t.ID)
		}
		seen[t.ID] = true
	}
	if len(ts) == 0 {
		return nil, fmt.Errorf("%s holds no tickets", path)
	}
	return ts, nil
}

func checkTicket(t Ticket, where string) error {
	if !ticketIDRE.MatchString(t.ID) {
		return fmt.Errorf("%s: ticket id %q must be 1-128 letters, digits, '.', '_' or '-' (it names the report files)", where, t.ID)
	}
	if strings.TrimSpace(t.Title+t.Body) == "" && t.Ref == "" {
		return fmt.Errorf("%s: ticket %q has neither title nor body", where, t.ID)
	}
	return nil
}

func readJSONL(r io.Reader, path string) ([]Ticket, error) {
	var out []Ticket
	// A bufio.Reader rather than a Scanner: a ticket may be one line of any
	// length (a pasted log); the whole file is held in memory anyway.
	br := bufio.NewReader(r)
	for n := 1; ; n++ {
		text, err := br.ReadString('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("read %s:%d: %w", path, n, err)
		}
		if text == "" && err != nil {
			break
		}
		line := strings.TrimSpace(text)
		if line == "" {
			continue
		}
		var raw struct {
			ID    json.RawMessage `json:"id"`
			Title string          `json:"title"`
			Body  string          `json:"body"`
			Ref   string          `json:"ref"`
		}
		where := fmt.Sprintf("%s:%d", path, n)
		if err := json.Unmarshal([]byte(line), &raw); err != nil {
			return nil, fmt.Errorf("%s: not a JSON object with id, title and body: %v", where, err)
		}
		id := strings.Trim(string(raw.ID), `"`) // ids may be strings or numbers
		t := Ticket{ID: id, Title: strings.TrimSpace(raw.Title), Body: strings.TrimSpace(raw.Body), Ref: strings.TrimSpace(raw.Ref)}
		if err := checkTicket(t, where); err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}

func readCSV(r io.Reader, path string) ([]Ticket, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	header, err := cr.Read()
	if err != nil {
		return nil, fmt.Errorf("%s: read CSV header: %w", path, err)
	}
	col := map[string]int{}
	for i, h := range header {
		col[strings.ToLower(strings.TrimSpace(strings.TrimPrefix(h, "\ufeff")))] = i
	}
	if _, ok := col["id"]; !ok {
		return nil, fmt.Errorf("%s: the CSV header %q has no id column; want id,title,body", path, strings.Join(header, ","))
	}
	get := func(rec []string, name string) string {
		if i, ok := col[name]; ok && i < len(rec) {
			return strings.TrimSpace(rec[i])
		}
		return ""
	}
	var out []Ticket
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		line, _ := cr.FieldPos(0)
		t := Ticket{ID: get(rec, "id"), Title: get(rec, "title"), Body: get(rec, "body"), Ref: get(rec, "ref")}
		if err := checkTicket(t, fmt.Sprintf("%s:%d", path, line)); err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}
