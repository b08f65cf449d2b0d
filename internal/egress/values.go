package egress

import (
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"

	"github.com/relayhq/relay/internal/safefs"
)

const (
	// minValue is the shortest value (in letters and digits) looked for:
	// shorter ones would match ordinary words.
	minValue = 12
	// b64Prefix is how much of a value's base64 (or hex) encoding is
	// looked for: 24 base64 characters encode 18 bytes whole, so an
	// encoding of the value, or of the file from the value's line on,
	// starts with them.
	b64Prefix = 24
	// maxSecretFile is how much of one secret-bearing file is read.
	maxSecretFile = 256 << 10
	// maxSecretFiles is how many secret-bearing files are read.
	maxSecretFiles = 200
)

// SecretValues reads the secret-bearing files (by p) of the checkout at
// root and returns the values they hold, as letters and digits only: each
// value of a KEY=value or key: value line and the parts of its URL or list,
// each other line, the body of a PEM block, and the first characters of the
// base64 and hex encodings of these and of the whole file. .git and .relay
// are skipped.
//
// Files are read through internal/safefs: beneath the root only, regular
// files only, without blocking on a FIFO swapped in.
//
// A nil p is [DefaultFilePolicy].
func SecretValues(root string, p *FilePolicy) ([]string, error) {
	if p == nil {
		p = DefaultFilePolicy()
	}
	r, err := safefs.OpenRoot(root)
	if err != nil {
		return nil, fmt.Errorf("read the secret-bearing files of %s: %w", root, err)
	}
	defer r.Close()
	seen := map[string]bool{}
	files := 0
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if path == root {
				return err
			}
			return nil // an unreadable corner is not published either
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			if n := d.Name(); path != root && (n == ".git" || n == ".relay") {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() || files >= maxSecretFiles {
			return nil
		}
		if _, secret := p.Match(filepath.ToSlash(rel)); !secret {
			return nil
		}
		files++
		b, err := readHead(r, rel)
		if err != nil {
			return nil
		}
		for _, v := range fileValues(string(b)) {
			seen[v] = true
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read the secret-bearing files of %s: %w", root, err)
	}
	out := make([]string, 0, len(seen))
	for v := range seen {
		out = append(out, v)
	}
	// Longest first, so a value replaces before a shorter one inside it.
	sort.Slice(out, func(i, j int) bool { return len(out[i]) > len(out[j]) || len(out[i]) == len(out[j]) && out[i] < out[j] })
	return out, nil
}

// readHead reads the first maxSecretFile bytes of the regular file rel.
func readHead(r *safefs.Root, rel string) ([]byte, error) {
	f, fi, err := r.Open(rel)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", rel)
	}
	return io.ReadAll(io.LimitReader(f, maxSecretFile))
}

// fileValues returns the values of one secret-bearing file's content.
func fileValues(content string) []string {
	var raw []string
	var pem strings.Builder
	add := func(v string) {
		if len(alnum(v)) >= minValue {
			raw = append(raw, v)
		}
	}
	for _, line := range strings.Split(content, "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "-----") || line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if isBase64Line(line) {
			pem.WriteString(line)
		}
		add(line)
		if i := strings.IndexAny(line, "=:"); i > 0 {
			v := strings.Trim(strings.TrimSpace(line[i+1:]), `"'`)
			add(v)
			// The parts of a URL or a list: a connection string's
			// password, an internal host name.
			for _, part := range strings.FieldsFunc(v, func(r rune) bool { return strings.ContainsRune(":/@?&=,; ", r) }) {
				add(part)
			}
		}
	}
	add(pem.String())
	var out []string
	enc := func(v string) {
		for _, s := range []string{base64.StdEncoding.EncodeToString([]byte(v)), base64.URLEncoding.EncodeToString([]byte(v)), hex.EncodeToString([]byte(v))} {
			s = alnum(s)
			out = append(out, s[:min(len(s), b64Prefix)])
		}
	}
	enc(content)
	for _, v := range raw {
		out = append(out, alnum(v))
		enc(v)
	}
	keep := out[:0]
	for _, v := range out {
		if len(v) >= minValue {
			keep = append(keep, v)
		}
	}
	return keep
}

// isBase64Line reports whether a line looks like a line of a PEM body.
func isBase64Line(s string) bool {
	if len(s) < 16 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !isAlnum(c) && c != '+' && c != '/' && c != '=' {
			return false
		}
	}
	return true
}

// alnum is s with only its ASCII letters and digits.
func alnum(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if isAlnum(s[i]) {
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

// fragLen is the length (letters and digits) of a piece of a value that is
// replaced on its own.
const fragLen = 16

// fragments returns, lower-cased, every fragLen-long piece that holds a
// letter and a digit of each value that looks random: upper- and
// lower-case letters and digits, as generated keys, tokens and passwords
// have. Names of settings (AWS_SECRET_ACCESS_KEY) lack the digits and the
// mixed case, so code that names them is not touched.
func fragments(values []string) map[string]bool {
	out := map[string]bool{}
	for _, v := range values {
		if len(v) <= fragLen || !mixed(v) {
			continue
		}
		lv := strings.ToLower(v)
		for k := 0; k+fragLen <= len(lv); k++ {
			if w := lv[k : k+fragLen]; hasLetterAndDigit(w) {
				out[w] = true
			}
		}
	}
	return out
}

// mixed reports whether s holds an upper-case letter, a lower-case letter
// and a digit.
func mixed(s string) bool {
	var up, low, dig bool
	for i := 0; i < len(s); i++ {
		c := s[i]
		up = up || c >= 'A' && c <= 'Z'
		low = low || c >= 'a' && c <= 'z'
		dig = dig || c >= '0' && c <= '9'
	}
	return up && low && dig
}

func hasLetterAndDigit(s string) bool {
	var letter, dig bool
	for i := 0; i < len(s); i++ {
		c := s[i]
		dig = dig || c >= '0' && c <= '9'
		letter = letter || c >= 'a' && c <= 'z'
	}
	return letter && dig
}
