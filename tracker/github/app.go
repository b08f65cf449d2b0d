package github

import (
	"context"
	"crypto/rsa"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/golang-jwt/jwt/v5"
	gh "github.com/google/go-github/v92/github"
)

// appAuth signs GitHub App JWTs and exchanges them for installation tokens.
type appAuth struct {
	appID int64
	key   *rsa.PrivateKey
	api   *gh.Client // authenticates with the app JWT (jwtTransport)
	now   func() time.Time
}

func newAppAuth(appID int64, pemKey []byte, newClient func(*appAuth) (*gh.Client, error)) (*appAuth, error) {
	key, err := jwt.ParseRSAPrivateKeyFromPEM(pemKey)
	if err != nil {
		// The parser's error says what is wrong with the PEM, never its content.
		return nil, fmt.Errorf("GitHub App private key: %w (want the PEM file GitHub generated for the app)", err)
	}
	a := &appAuth{appID: appID, key: key, now: time.Now}
	api, err := newClient(a)
	if err != nil {
		return nil, err
	}
	a.api = api
	return a, nil
}

// jwt returns a fresh app JWT. GitHub allows at most ten minutes; iat is set
// a minute back to absorb clock drift, as GitHub recommends.
func (a *appAuth) jwt() (string, error) {
	now := a.now()
	claims := jwt.RegisteredClaims{
		IssuedAt:  jwt.NewNumericDate(now.Add(-time.Minute)),
		ExpiresAt: jwt.NewNumericDate(now.Add(9 * time.Minute)),
		Issuer:    strconv.FormatInt(a.appID, 10),
	}
	s, err := jwt.NewWithClaims(jwt.SigningMethodRS256, claims).SignedString(a.key)
	if err != nil {
		return "", fmt.Errorf("sign GitHub App JWT: %w", err)
	}
	return s, nil
}

// jwtTransport authenticates app-level calls (installation lookup and
// token exchange) with a fresh JWT.
type jwtTransport struct {
	a    *appAuth
	base http.RoundTripper
}

func (t jwtTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	tok, err := t.a.jwt()
	if err != nil {
		return nil, err
	}
	req = req.Clone(req.Context())
	req.Header.Set("Authorization", "Bearer "+tok)
	return transport(t.base).RoundTrip(req)
}

// installationTransport authenticates as one installation, exchanging the
// app JWT for an installation token when the cached one is within a minute
// of expiry. Safe for concurrent use.
type installationTransport struct {
	a    *appAuth
	id   int64
	base http.RoundTripper

	mu      sync.Mutex
	token   string
	expires time.Time
}

func (t *installationTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	tok, err := t.installationToken(req.Context())
	if err != nil {
		return nil, err
	}
	req = req.Clone(req.Context())
	req.Header.Set("Authorization", "Bearer "+tok)
	return transport(t.base).RoundTrip(req)
}

func (t *installationTransport) installationToken(ctx context.Context) (string, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.token != "" && t.a.now().Add(time.Minute).Before(t.expires) {
		return t.token, nil
	}
	it, _, err := t.a.api.Apps.CreateInstallationToken(ctx, t.id, nil)
	if err != nil {
		return "", mapError(fmt.Sprintf("create a token for GitHub App installation %d", t.id), err)
	}
	if it.GetToken() == "" {
		return "", errors.New("create a token for GitHub App installation: GitHub returned no token")
	}
	t.token = it.GetToken()
	t.expires = it.GetExpiresAt().Time
	if t.expires.IsZero() {
		t.expires = t.a.now().Add(time.Hour) // GitHub's documented lifetime
	}
	return t.token, nil
}

func transport(rt http.RoundTripper) http.RoundTripper {
	if rt == nil {
		return http.DefaultTransport
	}
	return rt
}
