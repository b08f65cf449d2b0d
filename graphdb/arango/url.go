package arango

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"

	"github.com/relayhq/relay/internal/redact"
)

// URL schemes.
const (
	Scheme    = "arangodb"  // plain HTTP
	SchemeTLS = "arangodbs" // HTTPS
)

// Defaults applied by ParseURL.
const (
	DefaultPort     = 8529
	DefaultUser     = "root"
	DefaultDatabase = "relay"
)

// Target is a parsed store URL: where the server is, which database, and as
// whom.
type Target struct {
	Endpoint    string // "http://host:8529" or "https://host:8529"
	Database    string
	User        string
	Password    string // from the URL; empty when the URL carries none
	HasPassword bool   // the URL carried a password (possibly empty)
	TLS         bool
}

// String returns the target as a URL with the password masked, fit for logs
// and error messages.
func (t Target) String() string {
	scheme := Scheme
	if t.TLS {
		scheme = SchemeTLS
	}
	host := strings.TrimPrefix(strings.TrimPrefix(t.Endpoint, "https://"), "http://")
	user := t.User
	if t.HasPassword {
		user += ":***"
	}
	return fmt.Sprintf("%s://%s@%s/%s", scheme, user, host, t.Database)
}

// IsURL reports whether s names an ArangoDB store (arangodb:// or
// arangodbs://) rather than a directory.
func IsURL(s string) bool {
	return strings.HasPrefix(s, Scheme+"://") || strings.HasPrefix(s, SchemeTLS+"://")
}

// ParseURL parses arangodb://[user[:password]@]host[:port][/database]
// (arangodbs:// for TLS). The user defaults to root, the port to 8529 and
// the database to "relay". Query parameters and fragments are rejected so a
// typo never silently changes what is opened.
func ParseURL(raw string) (Target, error) {
	if raw == "" {
		return Target{}, errors.New("empty ArangoDB URL; want arangodb://user:pass@host:8529/dbname")
	}
	u, err := url.Parse(raw)
	if err != nil {
		return Target{}, fmt.Errorf("ArangoDB URL %q: %w; want arangodb://user:pass@host:8529/dbname", redact.URL(raw), err)
	}
	var t Target
	switch u.Scheme {
	case Scheme:
	case SchemeTLS:
		t.TLS = true
	default:
		return Target{}, fmt.Errorf("ArangoDB URL %q: scheme %q is not arangodb or arangodbs; want arangodb://user:pass@host:8529/dbname", redact.URL(raw), u.Scheme)
	}
	if u.Opaque != "" {
		return Target{}, fmt.Errorf("ArangoDB URL %q: missing // after the scheme; want %s://host:8529/dbname", redact.URL(raw), u.Scheme)
	}
	if u.RawQuery != "" || u.ForceQuery {
		return Target{}, fmt.Errorf("ArangoDB URL %q: query parameters are not supported; pass settings as flags or environment variables", redact.URL(raw))
	}
	if u.Fragment != "" {
		return Target{}, fmt.Errorf("ArangoDB URL %q: unexpected fragment #%s", redact.URL(raw), u.Fragment)
	}
	host := u.Hostname()
	if host == "" {
		return Target{}, fmt.Errorf("ArangoDB URL %q: missing host; want %s://host:8529/dbname", redact.URL(raw), u.Scheme)
	}
	port := DefaultPort
	if p := u.Port(); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > 65535 {
			return Target{}, fmt.Errorf("ArangoDB URL %q: port %q is not a number between 1 and 65535", redact.URL(raw), p)
		}
		port = n
	} else if strings.HasSuffix(u.Host, ":") {
		return Target{}, fmt.Errorf("ArangoDB URL %q: empty port after the colon", redact.URL(raw))
	}
	httpScheme := "http"
	if t.TLS {
		httpScheme = "https"
	}
	t.Endpoint = httpScheme + "://" + net.JoinHostPort(host, strconv.Itoa(port))

	t.User = DefaultUser
	if u.User != nil {
		if name := u.User.Username(); name != "" {
			t.User = name
		}
		t.Password, t.HasPassword = u.User.Password()
	}

	db := strings.TrimPrefix(u.Path, "/")
	if strings.Contains(db, "/") {
		return Target{}, fmt.Errorf("ArangoDB URL %q: path %q has more than one segment; want /dbname", redact.URL(raw), u.Path)
	}
	if db == "" {
		db = DefaultDatabase
	}
	if err := ValidateDatabaseName(db); err != nil {
		return Target{}, fmt.Errorf("ArangoDB URL %q: %w", redact.URL(raw), err)
	}
	t.Database = db
	return t, nil
}

// ValidateDatabaseName checks name against ArangoDB's traditional database
// naming rules: 1–64 characters, ASCII letters, digits, '_' and '-',
// starting with a letter.
func ValidateDatabaseName(name string) error {
	if name == "" || len(name) > 64 {
		return fmt.Errorf("database name %q must be 1 to 64 characters long", name)
	}
	c := name[0]
	if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
		return fmt.Errorf("database name %q must start with a letter", name)
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return fmt.Errorf("database name %q may hold only letters, digits, '_' and '-' (found %q)", name, c)
		}
	}
	return nil
}
