package agent

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/relayhq/relay/internal/redact"
)

// MaxReplyBytes caps the body relay reads from the model endpoint for one
// successful chat completion. A real completion is far smaller (128k tokens
// of text is about 0.5 MB); reading an unbounded reply would let one
// misbehaving endpoint hold gigabytes of memory, and the reply is then kept
// in the conversation, re-sent and recorded.
const MaxReplyBytes = 8 << 20

// maxErrorBody caps what is read of an error reply (4xx/5xx). Beyond it the
// body is cut short rather than failed, so the status code still decides
// whether to retry.
const maxErrorBody = 64 << 10

// guardTransport checks what the model endpoint answers before go-openai
// decodes it: a 2xx reply must be JSON (an HTML page means the base URL
// points at a web server, not at the API), and no reply may exceed its cap.
type guardTransport struct {
	next http.RoundTripper
	max  int64
}

func (g guardTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := g.next.RoundTrip(req)
	if err != nil || resp == nil {
		return resp, err
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		resp.Body = struct {
			io.Reader
			io.Closer
		}{io.LimitReader(resp.Body, maxErrorBody), resp.Body}
		return resp, nil
	}
	br := bufio.NewReaderSize(resp.Body, 512)
	head, _ := br.Peek(512)
	if rerr := notJSON(req, resp, head); rerr != nil {
		resp.Body.Close()
		return nil, rerr
	}
	resp.Body = &limitedBody{r: br, c: resp.Body, left: g.max, max: g.max}
	return resp, nil
}

// CloseIdleConnections lets http.Client.CloseIdleConnections reach the
// wrapped transport.
func (g guardTransport) CloseIdleConnections() {
	if c, ok := g.next.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}

// ReplyError says that the model endpoint answered with something that is
// not a chat completion.
type ReplyError struct {
	Endpoint    string // the endpoint's base URL, redacted
	Status      int
	ContentType string
	HTML        bool
	Snippet     string // the reply's first characters, when not HTML
}

func (e *ReplyError) Error() string {
	ct := e.ContentType
	if ct == "" {
		ct = "none"
	}
	if e.HTML {
		return fmt.Sprintf("the model endpoint at %s answered with HTML, not JSON (status %d, content-type %s); the base URL of an OpenAI-compatible API usually ends in /v1",
			e.Endpoint, e.Status, ct)
	}
	return fmt.Sprintf("the model endpoint at %s answered with something that is not JSON (status %d, content-type %s, starting %q); the base URL of an OpenAI-compatible API usually ends in /v1",
		e.Endpoint, e.Status, ct, e.Snippet)
}

// notJSON returns a *ReplyError when a successful reply cannot be a chat
// completion: declared as HTML, or not starting like a JSON object.
func notJSON(req *http.Request, resp *http.Response, head []byte) error {
	ct := resp.Header.Get("Content-Type")
	media, _, _ := mime.ParseMediaType(ct)
	body := bytes.TrimLeft(head, " \t\r\n\ufeff")
	html := media == "text/html" || media == "application/xhtml+xml" || bytes.HasPrefix(body, []byte("<"))
	if !html && (len(body) == 0 || body[0] == '{' || body[0] == '[') {
		return nil // JSON, or empty: go-openai's own error is clear enough
	}
	e := &ReplyError{Endpoint: endpointOf(req), Status: resp.StatusCode, ContentType: ct, HTML: html}
	if !html {
		s := string(body)
		if len(s) > 60 {
			s = s[:60]
			for !utf8.ValidString(s) {
				s = s[:len(s)-1]
			}
			s += "…"
		}
		e.Snippet = s
	}
	return e
}

// endpointOf is the base URL a request was made to: its URL without the
// operation's path and without the query, redacted.
func endpointOf(req *http.Request) string {
	u := *req.URL
	u.RawQuery, u.Fragment = "", ""
	for _, op := range []string{"/chat/completions", "/completions", "/embeddings"} {
		if p, ok := strings.CutSuffix(u.Path, op); ok {
			u.Path, u.RawPath = p, ""
			break
		}
	}
	return redact.URL(u.String())
}

// ReplyTooLargeError is returned while reading a reply that exceeds its cap.
type ReplyTooLargeError struct{ Max int64 }

func (e *ReplyTooLargeError) Error() string {
	return fmt.Sprintf("the model endpoint's reply is larger than %d MiB; relay stopped reading it (a chat completion is far smaller: check the endpoint, and the model's output limit)", e.Max>>20)
}

// limitedBody fails a read once more than max bytes have been read.
type limitedBody struct {
	r         io.Reader
	c         io.Closer
	left, max int64
}

func (l *limitedBody) Read(p []byte) (int, error) {
	if l.left < 0 {
		return 0, &ReplyTooLargeError{Max: l.max}
	}
	if int64(len(p)) > l.left+1 {
		p = p[:l.left+1]
	}
	n, err := l.r.Read(p)
	l.left -= int64(n)
	if l.left < 0 {
		return 0, &ReplyTooLargeError{Max: l.max}
	}
	return n, err
}

func (l *limitedBody) Close() error { return l.c.Close() }
