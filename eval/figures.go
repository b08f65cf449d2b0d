package eval

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// DESIGN: golden figures. TestDevSet and TestRealSet write a summary table
// (one row per method and ablation) and one line per instance for the
// relay method; the committed copy in testdata is the golden. A run is
// compared with it by CompareFigures, and the rules are one-sided:
//
//   - a method or instance of the golden missing from the run fails, and so
//     does a method whose instance count changed;
//   - a quality column of a method (every column but n and s/inst) lower
//     than the golden fails; the figures are rounded the same way on both
//     sides, so there is no tolerance beyond rounding;
//   - per instance, a lower file_rr or func_rr (the first gold file or
//     function ranked lower) fails, and so does file_all@5 or func_any@10
//     going from true to false;
//   - anything better, a new method or instance, or different top_files at
//     equal ranks is reported as an improvement, so that a change that helps
//     is recorded with -update rather than silently lost;
//   - s/inst (seconds) is never compared: it depends on the machine.

// FigureChanges is what CompareFigures found: Worse fails a test, Better
// asks for -update.
type FigureChanges struct {
	Worse  []string
	Better []string
}

// figures is one parsed stats file.
type figures struct {
	columns []string                      // summary columns after "method"
	methods map[string]map[string]float64 // method → column → value
	order   []string                      // methods in file order
	insts   map[string]map[string]string  // instance → key → value
	ids     []string                      // instances in file order
}

// summaryIgnored are summary columns that say nothing about quality.
var summaryIgnored = map[string]bool{"n": true, "s/inst": true}

// CompareFigures compares a run's figures (got) with the golden ones by
// the rules of the DESIGN note above. An error means either text is not a
// stats file.
func CompareFigures(golden, got string) (FigureChanges, error) {
	want, err := parseFigures(golden)
	if err != nil {
		return FigureChanges{}, fmt.Errorf("golden figures: %w", err)
	}
	have, err := parseFigures(got)
	if err != nil {
		return FigureChanges{}, fmt.Errorf("computed figures: %w", err)
	}
	var ch FigureChanges
	compareSummaries(want, have, &ch)
	compareInstances(want, have, &ch)
	return ch, nil
}

func compareSummaries(want, have figures, ch *FigureChanges) {
	for _, m := range want.order {
		h, ok := have.methods[m]
		if !ok {
			ch.Worse = append(ch.Worse, fmt.Sprintf("method %s: missing", m))
			continue
		}
		w := want.methods[m]
		if w["n"] != h["n"] {
			ch.Worse = append(ch.Worse, fmt.Sprintf("method %s: %v instances, golden %v", m, h["n"], w["n"]))
			continue
		}
		for _, c := range want.columns {
			wv, wok := w[c]
			hv, hok := h[c]
			if summaryIgnored[c] || !wok {
				continue
			}
			switch {
			case !hok:
				ch.Worse = append(ch.Worse, fmt.Sprintf("method %s: %s missing, golden %v", m, c, wv))
			case hv < wv:
				ch.Worse = append(ch.Worse, fmt.Sprintf("method %s: %s %v, golden %v", m, c, hv, wv))
			case hv > wv:
				ch.Better = append(ch.Better, fmt.Sprintf("method %s: %s %v, golden %v", m, c, hv, wv))
			}
		}
	}
	for _, m := range have.order {
		if _, ok := want.methods[m]; !ok {
			ch.Better = append(ch.Better, fmt.Sprintf("method %s: not in the golden figures", m))
		}
	}
}

// instRanks are the per-instance reciprocal ranks; instFlags the hit flags.
var (
	instRanks = []string{"file_rr", "func_rr"}
	instFlags = []string{"file_all@5", "func_any@10"}
)

func compareInstances(want, have figures, ch *FigureChanges) {
	for _, id := range want.ids {
		h, ok := have.insts[id]
		if !ok {
			ch.Worse = append(ch.Worse, fmt.Sprintf("instance %s: missing", id))
			continue
		}
		w := want.insts[id]
		changed := false
		for _, k := range instRanks {
			wv, _ := strconv.ParseFloat(w[k], 64)
			hv, err := strconv.ParseFloat(h[k], 64)
			switch {
			case err != nil:
				ch.Worse = append(ch.Worse, fmt.Sprintf("instance %s: %s %q is not a number", id, k, h[k]))
			case hv < wv:
				ch.Worse = append(ch.Worse, fmt.Sprintf("instance %s: %s %s, golden %s (ranked lower)", id, k, h[k], w[k]))
			case hv > wv:
				ch.Better = append(ch.Better, fmt.Sprintf("instance %s: %s %s, golden %s", id, k, h[k], w[k]))
				changed = true
			}
		}
		for _, k := range instFlags {
			switch {
			case w[k] == "true" && h[k] != "true":
				ch.Worse = append(ch.Worse, fmt.Sprintf("instance %s: %s %s, golden true", id, k, h[k]))
			case w[k] != "true" && h[k] == "true":
				ch.Better = append(ch.Better, fmt.Sprintf("instance %s: %s true, golden %s", id, k, w[k]))
				changed = true
			}
		}
		if !changed && w["top_files"] != h["top_files"] {
			ch.Better = append(ch.Better, fmt.Sprintf("instance %s: top_files %s, golden %s (ranks unchanged)", id, h["top_files"], w["top_files"]))
		}
	}
	for _, id := range have.ids {
		if _, ok := want.insts[id]; !ok {
			ch.Better = append(ch.Better, fmt.Sprintf("instance %s: not in the golden figures", id))
		}
	}
}

// parseFigures reads a stats file: comment lines start with "#", the
// summary table starts at its "method" header, and every later line of
// key=value fields is one instance.
func parseFigures(text string) (figures, error) {
	f := figures{methods: map[string]map[string]float64{}, insts: map[string]map[string]string{}}
	inTable := false
	for n, line := range strings.Split(text, "\n") {
		fields := strings.Fields(line)
		switch {
		case len(fields) == 0:
			inTable = false
		case strings.HasPrefix(fields[0], "#"):
			inTable = false
		case fields[0] == "method":
			f.columns, inTable = fields[1:], true
		case inTable && strings.HasPrefix(line, "  "):
			// a note under a row ("(2 instance(s) failed…)")
		case inTable:
			if err := f.addMethod(fields); err != nil {
				return figures{}, fmt.Errorf("line %d: %w", n+1, err)
			}
		case len(fields) > 1 && strings.Contains(fields[1], "="):
			if err := f.addInstance(fields); err != nil {
				return figures{}, fmt.Errorf("line %d: %w", n+1, err)
			}
		default:
			return figures{}, fmt.Errorf("line %d: %q is neither a table row nor an instance", n+1, line)
		}
	}
	if len(f.order) == 0 {
		return figures{}, fmt.Errorf("no summary table (a line starting with \"method\" and its rows)")
	}
	return f, nil
}

func (f *figures) addMethod(fields []string) error {
	if len(fields) != len(f.columns)+1 {
		return fmt.Errorf("row %q has %d columns, the header %d", fields[0], len(fields)-1, len(f.columns))
	}
	if _, dup := f.methods[fields[0]]; dup {
		return fmt.Errorf("method %q repeats", fields[0])
	}
	row := map[string]float64{}
	for i, c := range f.columns {
		if fields[i+1] == "-" {
			continue // not scored for this method
		}
		v, err := strconv.ParseFloat(fields[i+1], 64)
		if err != nil {
			return fmt.Errorf("method %s: %s %q is not a number", fields[0], c, fields[i+1])
		}
		row[c] = v
	}
	f.methods[fields[0]] = row
	f.order = append(f.order, fields[0])
	return nil
}

func (f *figures) addInstance(fields []string) error {
	id := fields[0]
	if _, dup := f.insts[id]; dup {
		return fmt.Errorf("instance %q repeats", id)
	}
	kv := map[string]string{}
	for _, fl := range fields[1:] {
		k, v, ok := strings.Cut(fl, "=")
		if !ok {
			return fmt.Errorf("instance %s: field %q is not key=value", id, fl)
		}
		kv[k] = v
	}
	for _, k := range slices.Concat(instRanks, instFlags) {
		if _, ok := kv[k]; !ok {
			return fmt.Errorf("instance %s: no %s", id, k)
		}
	}
	f.insts[id] = kv
	f.ids = append(f.ids, id)
	return nil
}
