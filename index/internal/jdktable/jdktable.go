// Package jdktable generates the table of JDK signatures the Java
// frontend types calls and lambda parameters with when a repository uses
// the JDK's collections, streams and functional interfaces without
// declaring them (every repository but the JDK's own): the public
// methods of a fixed list of JDK types as `javap -public` prints them,
// with their generic signatures. It owns the generation only; package
// index/java embeds the result (index/java/jdk.txt) and its tests compare
// the embedded table with a fresh one when a JDK is installed.
//
// Format, one record a line, fields separated by tabs:
//
//	T kind qualified-name type-parameters superclass interfaces
//	M flags name type-parameters return-type parameter-types
//
// Nested types are joined by dots (java.util.Map.Entry); type parameters
// are their names joined by ", " (bounds dropped); interfaces are joined
// by " & " and parameter types by "; " (neither appears inside a type);
// flags are letters: a abstract, s static, v varargs ("-": none).
package jdktable

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"strings"
)

// Classes are the JDK types the table holds: the functional interfaces of
// java.util.function and java.lang, the collection and map interfaces and
// their common implementations, iterators, Optional, Comparator and the
// streams. java.lang.Object and String are left out on purpose: the
// frontend treats an unresolved Object or String specially.
var Classes = []string{
	"java.lang.Iterable", "java.lang.Runnable", "java.lang.Comparable", "java.lang.AutoCloseable",
	"java.util.concurrent.Callable",
	"java.util.Iterator", "java.util.ListIterator", "java.util.Spliterator",
	"java.util.Collection", "java.util.List", "java.util.Set", "java.util.SortedSet", "java.util.NavigableSet",
	"java.util.Queue", "java.util.Deque", "java.util.Map", "java.util.Map$Entry", "java.util.SortedMap",
	"java.util.NavigableMap", "java.util.concurrent.ConcurrentMap",
	"java.util.ArrayList", "java.util.LinkedList", "java.util.ArrayDeque", "java.util.HashSet",
	"java.util.LinkedHashSet", "java.util.TreeSet", "java.util.HashMap", "java.util.LinkedHashMap",
	"java.util.TreeMap", "java.util.IdentityHashMap", "java.util.WeakHashMap", "java.util.EnumMap",
	"java.util.concurrent.ConcurrentHashMap", "java.util.concurrent.CopyOnWriteArrayList",
	"java.util.Optional", "java.util.Comparator",
	"java.util.stream.BaseStream", "java.util.stream.Stream",
	"java.util.function.BiConsumer", "java.util.function.BiFunction", "java.util.function.BinaryOperator",
	"java.util.function.BiPredicate", "java.util.function.BooleanSupplier", "java.util.function.Consumer",
	"java.util.function.DoubleBinaryOperator", "java.util.function.DoubleConsumer", "java.util.function.DoubleFunction",
	"java.util.function.DoublePredicate", "java.util.function.DoubleSupplier", "java.util.function.DoubleToIntFunction",
	"java.util.function.DoubleToLongFunction", "java.util.function.DoubleUnaryOperator", "java.util.function.Function",
	"java.util.function.IntBinaryOperator", "java.util.function.IntConsumer", "java.util.function.IntFunction",
	"java.util.function.IntPredicate", "java.util.function.IntSupplier", "java.util.function.IntToDoubleFunction",
	"java.util.function.IntToLongFunction", "java.util.function.IntUnaryOperator", "java.util.function.LongBinaryOperator",
	"java.util.function.LongConsumer", "java.util.function.LongFunction", "java.util.function.LongPredicate",
	"java.util.function.LongSupplier", "java.util.function.LongToDoubleFunction", "java.util.function.LongToIntFunction",
	"java.util.function.LongUnaryOperator", "java.util.function.ObjDoubleConsumer", "java.util.function.ObjIntConsumer",
	"java.util.function.ObjLongConsumer", "java.util.function.Predicate", "java.util.function.Supplier",
	"java.util.function.ToDoubleBiFunction", "java.util.function.ToDoubleFunction", "java.util.function.ToIntBiFunction",
	"java.util.function.ToIntFunction", "java.util.function.ToLongBiFunction", "java.util.function.ToLongFunction",
	"java.util.function.UnaryOperator",
}

// Header is the table's first line.
const Header = "# JDK signatures for the Java frontend: go run ./index/internal/jdktable/gen (javap -public); do not edit"

// Generate runs javap on Classes and returns the table.
func Generate(ctx context.Context, javap string) ([]byte, error) {
	out, err := exec.CommandContext(ctx, javap, append([]string{"-public"}, Classes...)...).Output()
	if err != nil {
		return nil, fmt.Errorf("javap -public: %w", err)
	}
	return Convert(out)
}

// Convert turns `javap -public` output into the table.
func Convert(javapOut []byte) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString(Header + "\n")
	sc := bufio.NewScanner(bytes.NewReader(javapOut))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "" || line == "}" || strings.HasPrefix(line, "Compiled from"):
		case strings.HasSuffix(line, "{"):
			rec, err := typeRecord(strings.TrimSuffix(line, "{"))
			if err != nil {
				return nil, err
			}
			b.WriteString(rec + "\n")
		case strings.HasSuffix(line, ";"):
			if rec, ok := methodRecord(strings.TrimSuffix(line, ";")); ok {
				b.WriteString(rec + "\n")
			}
		default:
			return nil, fmt.Errorf("javap line not understood: %q", line)
		}
	}
	return b.Bytes(), sc.Err()
}

var modifiers = map[string]bool{"public": true, "protected": true, "abstract": true, "static": true, "final": true,
	"default": true, "synchronized": true, "native": true, "strictfp": true, "sealed": true, "non-sealed": true}

// typeRecord converts a class header: "public interface java.util.List<E>
// extends java.util.Collection<E>".
func typeRecord(h string) (string, error) {
	words := strings.Fields(h)
	i := 0
	for i < len(words) && modifiers[words[i]] {
		i++
	}
	if i >= len(words)-1 {
		return "", fmt.Errorf("javap class header not understood: %q", h)
	}
	kind := words[i]
	rest := strings.Join(words[i+1:], " ")
	name, rest := cutType(rest)
	q, tps := splitTypeParams(name)
	var super string
	var ifaces []string
	for rest != "" {
		var kw string
		kw, rest, _ = strings.Cut(rest, " ")
		list := splitTop(beforeKeyword(&rest), ',')
		for k := range list {
			list[k] = dots(list[k])
		}
		switch {
		case kw == "extends" && kind == "class":
			super = strings.Join(list, "")
		case kw == "extends" || kw == "implements":
			ifaces = append(ifaces, list...)
		case kw == "permits":
		default:
			return "", fmt.Errorf("javap class header not understood: %q", h)
		}
	}
	return strings.Join([]string{"T", kind, dots(q), strings.Join(tps, ", "), super, strings.Join(ifaces, " & ")}, "\t"), nil
}

// beforeKeyword returns the text of *rest before the next " implements "
// or " permits " and leaves the keyword and what follows in *rest.
func beforeKeyword(rest *string) string {
	for _, kw := range []string{" implements ", " permits "} {
		if i := strings.Index(*rest, kw); i >= 0 {
			s := (*rest)[:i]
			*rest = (*rest)[i+1:]
			return s
		}
	}
	s := *rest
	*rest = ""
	return s
}

// methodRecord converts a member line; fields and constructors give none.
func methodRecord(m string) (string, bool) {
	m, _, _ = strings.Cut(m, " throws ")
	open := strings.IndexByte(m, '(')
	if open < 0 || !strings.HasSuffix(m, ")") {
		return "", false // a field
	}
	head, params := m[:open], m[open+1:len(m)-1]
	words := splitTop(strings.ReplaceAll(head, " ", "\x00"), '\x00')
	flags := ""
	i := 0
	for i < len(words) && modifiers[words[i]] {
		switch words[i] {
		case "abstract":
			flags += "a"
		case "static":
			flags += "s"
		}
		i++
	}
	var tps []string
	if i < len(words) && strings.HasPrefix(words[i], "<") {
		_, tps = splitTypeParams("x" + words[i])
		i++
	}
	if len(words)-i != 2 {
		return "", false // a constructor: no return type
	}
	ret, name := dots(words[i]), words[i+1]
	ps := splitTop(params, ',')
	for k := range ps {
		ps[k] = dots(ps[k])
	}
	if len(ps) > 0 && strings.HasSuffix(ps[len(ps)-1], "...") {
		flags += "v"
	}
	if flags == "" {
		flags = "-"
	}
	return strings.Join([]string{"M", flags, name, strings.Join(tps, ", "), ret, strings.Join(ps, "; ")}, "\t"), true
}

// cutType splits the first type (with its type arguments) off s.
func cutType(s string) (string, string) {
	depth := 0
	for i, r := range s {
		switch r {
		case '<':
			depth++
		case '>':
			depth--
		case ' ':
			if depth == 0 {
				return s[:i], strings.TrimSpace(s[i+1:])
			}
		}
	}
	return s, ""
}

// splitTypeParams splits "java.util.Map<K, V>" into the name and the type
// parameters' names (bounds dropped).
func splitTypeParams(s string) (string, []string) {
	i := strings.IndexByte(s, '<')
	if i < 0 {
		return s, nil
	}
	var names []string
	for _, p := range splitTop(s[i+1:strings.LastIndexByte(s, '>')], ',') {
		n, _, _ := strings.Cut(p, " ")
		names = append(names, n)
	}
	return s[:i], names
}

// splitTop splits s at sep outside angle brackets, trimming the parts.
func splitTop(s string, sep rune) []string {
	var out []string
	depth, start := 0, 0
	for i, r := range s {
		switch {
		case r == '<':
			depth++
		case r == '>':
			depth--
		case r == sep && depth == 0:
			out = append(out, strings.TrimSpace(strings.ReplaceAll(s[start:i], "\x00", " ")))
			start = i + len(string(r))
		}
	}
	if last := strings.TrimSpace(strings.ReplaceAll(s[start:], "\x00", " ")); last != "" {
		out = append(out, last)
	}
	return out
}

// dots writes nested type names as the frontend does (Map$Entry → Map.Entry).
func dots(s string) string { return strings.ReplaceAll(s, "$", ".") }
