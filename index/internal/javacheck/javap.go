package javacheck

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os/exec"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// invoke is one invoke* instruction of a compiled method.
type invoke struct {
	file   string // the source file, repository-relative (package path + SourceFile)
	line   int
	owner  string // binary name with dots: java.util.ArrayList$Itr
	name   string // <init> for constructors
	params []string
	caller string // owner.method of the calling method, for messages
	ctor   bool   // the calling method is a constructor
}

var (
	reInvoke = regexp.MustCompile(`^\s+(\d+): (invokevirtual|invokespecial|invokestatic|invokeinterface)\s+#\d+(?:,\s+\d+)?\s+// (?:Interface)?Method (\S+)`)
	reLine   = regexp.MustCompile(`^\s+line (\d+): (\d+)$`)
)

// javap runs javap -c -p -l on classes (binary names) in batches and
// returns their invoke instructions. module names the runtime image module
// the classes come from ("" for classpath).
func javap(ctx context.Context, bin, module, classpath string, classes []string) ([]invoke, error) {
	var out []invoke
	const batch = 400
	for i := 0; i < len(classes); i += batch {
		args := []string{"-c", "-p", "-l"}
		if module != "" {
			args = append(args, "--module", module)
		} else {
			args = append(args, "-cp", classpath)
		}
		args = append(args, classes[i:min(i+batch, len(classes))]...)
		cmd := exec.CommandContext(ctx, bin, args...)
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			return nil, fmt.Errorf("javap: %w", err)
		}
		if err := cmd.Start(); err != nil {
			return nil, fmt.Errorf("start javap: %w", err)
		}
		ins, perr := parseJavap(stdout)
		werr := cmd.Wait()
		if perr != nil {
			return nil, perr
		}
		if werr != nil && len(ins) == 0 {
			return nil, fmt.Errorf("javap: %w", werr)
		}
		out = append(out, ins...)
	}
	return out, nil
}

// parseJavap reads javap -c -p -l output: per method, its invoke
// instructions by offset, then its line number table.
func parseJavap(r io.Reader) ([]invoke, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	var out []invoke
	var src, class, method, super string
	skip := false
	type pending struct {
		pc int
		in invoke
	}
	var pend []pending
	var table [][2]int // line, start pc
	flush := func() {
		if len(pend) == 1 && pend[0].in.owner == class && strings.Contains(method, " "+pend[0].in.name+"(") && len(table) == 1 {
			pend = nil // a bridge method: one line, calling the method it bridges
		}
		sort.Slice(table, func(a, b int) bool { return table[a][1] < table[b][1] })
		for _, p := range pend {
			ln := 0
			for _, t := range table {
				if t[1] <= p.pc {
					ln = t[0]
				}
			}
			if ln > 0 && !skip {
				p.in.line = ln
				out = append(out, p.in)
			}
		}
		pend, table = nil, nil
	}
	for sc.Scan() {
		l := sc.Text()
		switch {
		case strings.HasPrefix(l, "Compiled from \""):
			flush()
			src = strings.TrimSuffix(strings.TrimPrefix(l, "Compiled from \""), "\"")
		case len(l) > 0 && l[0] != ' ' && strings.HasSuffix(l, "{"):
			flush()
			class, super = classOf(l), ""
			if f := strings.Fields(l); len(f) > 0 {
				for i, w := range f {
					if w == "extends" && i+1 < len(f) {
						super = f[i+1]
						if j := strings.IndexByte(super, '<'); j >= 0 {
							super = super[:j]
						}
					}
				}
			}
		case strings.HasPrefix(l, "  ") && !strings.HasPrefix(l, "   ") && strings.HasSuffix(l, ";"):
			flush()
			method = l
			// Bridge methods (shown as volatile) and the enum methods the
			// compiler writes have no source of their own.
			skip = strings.Contains(l, " volatile ") || strings.Contains(l, " $values(") ||
				strings.Contains(l, " "+class+"[] values()") || isEnumHeader(l, class)
		default:
			if m := reInvoke.FindStringSubmatch(l); m != nil {
				pc, _ := strconv.Atoi(m[1])
				in, ok := parseTarget(m[3], class)
				if ok && in.owner == class && anonymous(class) && super != "" && in.name != "<init>" {
					in.owner = super // an anonymous class's inherited method
				}
				if ok {
					in.file = sourceOf(class, src)
					in.caller = class + " " + strings.TrimSpace(method)
					in.ctor = strings.Contains(method, " "+class+"(") || strings.HasPrefix(strings.TrimSpace(method), class+"(")
					pend = append(pend, pending{pc, in})
				}
			} else if m := reLine.FindStringSubmatch(l); m != nil {
				ln, _ := strconv.Atoi(m[1])
				pc, _ := strconv.Atoi(m[2])
				table = append(table, [2]int{ln, pc})
			}
		}
	}
	flush()
	return out, sc.Err()
}

// isEnumHeader reports whether a valueOf(String) method header is the
// compiler's enum valueOf: static, returning the class itself.
func isEnumHeader(l, class string) bool {
	return strings.Contains(l, "static "+class+" valueOf(java.lang.String)")
}

// classOf extracts the binary name from a javap class header.
func classOf(l string) string {
	f := strings.Fields(strings.TrimSuffix(l, "{"))
	for i, w := range f {
		if (w == "class" || w == "interface" || w == "enum") && i+1 < len(f) {
			n := f[i+1]
			if j := strings.IndexByte(n, '<'); j >= 0 {
				n = n[:j]
			}
			return n
		}
	}
	return ""
}

// sourceOf is the repository path of the source of class: its package
// directory and the SourceFile attribute.
func sourceOf(class, src string) string {
	if i := strings.LastIndexByte(class, '.'); i >= 0 {
		return strings.ReplaceAll(class[:i], ".", "/") + "/" + src
	}
	return src
}

// parseTarget reads "java/util/AbstractList.\"<init>\":()V" (owner
// omitted for the class's own methods).
func parseTarget(s, class string) (invoke, bool) {
	colon := strings.LastIndex(s, ":(")
	if colon < 0 {
		return invoke{}, false
	}
	ref, desc := s[:colon], s[colon+1:]
	if strings.HasPrefix(ref, "\"[") {
		return invoke{}, false // a method of an array (clone)
	}
	owner, name := class, ref
	if i := strings.LastIndexByte(ref, '.'); i >= 0 && !strings.HasSuffix(ref[:i], "\"") {
		owner, name = strings.ReplaceAll(ref[:i], "/", "."), ref[i+1:]
	}
	name = strings.Trim(name, "\"")
	if strings.HasPrefix(owner, "[") || strings.HasPrefix(owner, "\"[") {
		return invoke{}, false // a method of an array (clone)
	}
	end := strings.IndexByte(desc, ')')
	if end < 0 {
		return invoke{}, false
	}
	return invoke{owner: owner, name: name, params: descParams(desc[1:end])}, true
}

// descParams converts a descriptor's parameters to simple type names
// ("I[Ljava/lang/String;" → int, String[]).
func descParams(d string) []string {
	var out []string
	dims := 0
	for i := 0; i < len(d); i++ {
		var n string
		switch d[i] {
		case '[':
			dims++
			continue
		case 'L':
			j := strings.IndexByte(d[i:], ';')
			if j < 0 {
				return out
			}
			n = d[i+1 : i+j]
			n = n[strings.LastIndexAny(n, "/$")+1:]
			i += j
		default:
			n = map[byte]string{'I': "int", 'J': "long", 'Z': "boolean", 'B': "byte", 'C': "char", 'S': "short", 'F': "float", 'D': "double"}[d[i]]
		}
		out = append(out, n+strings.Repeat("[]", dims))
		dims = 0
	}
	return out
}
