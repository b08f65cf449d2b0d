package cinclude

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/mattn/go-shellwords"
)

// CompileDBName is the base name of a JSON compilation database.
const CompileDBName = "compile_commands.json"

// Command is one entry of a JSON compilation database
// (https://clang.llvm.org/docs/JSONCompilationDatabase.html): the
// compiler's arguments for one translation unit, run in Directory.
type Command struct {
	Directory string   // absolute (made so against the database's folder when relative)
	File      string   // absolute: the main source file
	Arguments []string // argv, the compiler first; "command" entries are split as a shell would
	Output    string   // the object file, when given
}

// LoadCompileDB reads the compilation database at path. Relative
// directories are taken against the database's own folder; entries with
// neither arguments nor a command are an error naming the entry.
func LoadCompileDB(path string) ([]Command, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read compilation database: %w", err)
	}
	return ParseCompileDB(data, filepath.Dir(path))
}

// ParseCompileDB parses a compilation database whose relative
// directories are taken against base.
func ParseCompileDB(data []byte, base string) ([]Command, error) {
	var raw []struct {
		Directory string   `json:"directory"`
		File      string   `json:"file"`
		Arguments []string `json:"arguments"`
		Command   string   `json:"command"`
		Output    string   `json:"output"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("parse compilation database (a JSON array of {directory, file, arguments|command} is expected): %w", err)
	}
	out := make([]Command, 0, len(raw))
	for i, r := range raw {
		if r.File == "" {
			return nil, fmt.Errorf("compilation database entry %d: no file", i)
		}
		dir := r.Directory
		if !filepath.IsAbs(dir) {
			dir = filepath.Join(base, dir)
		}
		args := r.Arguments
		if len(args) == 0 {
			if strings.TrimSpace(r.Command) == "" {
				return nil, fmt.Errorf("compilation database entry %d (%s): neither arguments nor command", i, r.File)
			}
			p := shellwords.NewParser()
			var err error
			if args, err = p.Parse(r.Command); err != nil {
				return nil, fmt.Errorf("compilation database entry %d (%s): split command: %w", i, r.File, err)
			}
		}
		out = append(out, Command{Directory: filepath.Clean(dir), File: absIn(dir, r.File), Arguments: args, Output: r.Output})
	}
	return out, nil
}

// IncludeDirs returns the command's include directories in search order
// (-iquote, -I, -isystem, -idirafter; both "-Idir" and "-I dir"),
// absolute and cleaned.
func (c Command) IncludeDirs() []string {
	var quote, normal, system, after []string
	flags := []struct {
		flag string
		to   *[]string
	}{{"-iquote", &quote}, {"-isystem", &system}, {"-idirafter", &after}, {"-I", &normal}, {"/I", &normal}}
	for i := 0; i < len(c.Arguments); i++ {
		a := c.Arguments[i]
		for _, f := range flags {
			if !strings.HasPrefix(a, f.flag) {
				continue
			}
			v := strings.TrimPrefix(a, f.flag)
			if v == "" && i+1 < len(c.Arguments) {
				i++
				v = c.Arguments[i]
			}
			if v != "" {
				*f.to = append(*f.to, absIn(c.Directory, v))
			}
			break
		}
	}
	return append(append(append(quote, normal...), system...), after...)
}

// absIn returns p made absolute against dir, cleaned.
func absIn(dir, p string) string {
	if !filepath.IsAbs(p) {
		p = filepath.Join(dir, p)
	}
	return filepath.Clean(p)
}
