package arango

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"net/url"
	"os"
	"testing"
	"time"

	"github.com/relayhq/relay/graphdb"
	"github.com/relayhq/relay/graphdb/storetest"

	"github.com/relayhq/relay/internal/redact"
)

// serverURL returns RELAY_ARANGO_URL, or skips: there is no way to run
// these tests without a real ArangoDB server.
func serverURL(t testing.TB) string {
	t.Helper()
	raw := os.Getenv("RELAY_ARANGO_URL")
	if raw == "" {
		t.Skip("RELAY_ARANGO_URL is not set, so there is no ArangoDB server to test against; " +
			"start one (examples/arangodb/docker-compose.yml) and set RELAY_ARANGO_URL=arangodb://root@localhost:8529 " +
			"and RELAY_ARANGO_PASSWORD to run the conformance suite")
	}
	return raw
}

// freshURL returns raw with its database replaced by a new, unique name.
func freshURL(t testing.TB, raw string) string {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatalf("RELAY_ARANGO_URL: %v", err)
	}
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		t.Fatal(err)
	}
	u.Path = "/relaytest_" + hex.EncodeToString(b[:])
	return u.String()
}

// openFresh opens a store in a new database and drops the database when
// the test ends.
func openFresh(t testing.TB, rawURL string, o Options) *Store {
	t.Helper()
	if o.Password == "" {
		o.Password = os.Getenv("RELAY_ARANGO_PASSWORD")
	}
	s, err := Open(context.Background(), rawURL, o)
	if err != nil {
		t.Fatalf("Open(%s): %v", redact.URL(rawURL), err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := s.Drop(ctx); err != nil {
			t.Errorf("drop test database %s: %v", s.target.Database, err)
		}
	})
	return s
}

func TestConformance(t *testing.T) {
	raw := serverURL(t)
	storetest.Run(t, func(t *testing.T) graphdb.Store { return openFresh(t, freshURL(t, raw), Options{}) })
}

// openSecond opens another Store (another writer) on s's database.
func openSecond(t *testing.T, rawURL string, o Options) *Store {
	t.Helper()
	if o.Password == "" {
		o.Password = os.Getenv("RELAY_ARANGO_PASSWORD")
	}
	s, err := Open(t.Context(), rawURL, o)
	if err != nil {
		t.Fatalf("Open second store: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestLeaseAcrossStores(t *testing.T) {
	u := freshURL(t, serverURL(t))
	ctx := t.Context()
	a := openFresh(t, u, Options{Holder: "writer-a"})
	b := openSecond(t, u, Options{Holder: "writer-b"})
	txa, err := a.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Begin(ctx); !errors.Is(err, graphdb.ErrLocked) {
		t.Fatalf("second writer's Begin: %v, want ErrLocked", err)
	} else {
		t.Logf("second writer: %v", err)
	}
	if err := txa.SetMeta(ctx, "k", "a"); err != nil {
		t.Fatal(err)
	}
	if err := txa.Commit(); err != nil {
		t.Fatal(err)
	}
	txb, err := b.Begin(ctx)
	if err != nil {
		t.Fatalf("Begin after the first writer committed: %v", err)
	}
	if err := txb.Rollback(); err != nil {
		t.Fatal(err)
	}
	if v, err := b.Meta(ctx, "k"); err != nil || v != "a" {
		t.Errorf("Meta(k) from the second store = %q, %v; want a", v, err)
	}
}

// TestLeaseExpiry: a writer whose lease lapsed (its clock says so) loses
// the lock to the next writer and its Commit fails with ErrLocked.
func TestLeaseExpiry(t *testing.T) {
	u := freshURL(t, serverURL(t))
	ctx := t.Context()
	a := openFresh(t, u, Options{Holder: "stale", LockTTL: time.Hour})
	later := func() time.Time { return time.Now().Add(2 * time.Hour) }
	b := openSecond(t, u, Options{Holder: "fresh", LockTTL: time.Hour, Now: later})
	txa, err := a.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := txa.SetMeta(ctx, "k", "stale"); err != nil {
		t.Fatal(err)
	}
	txb, err := b.Begin(ctx)
	if err != nil {
		t.Fatalf("Begin over an expired lease: %v", err)
	}
	if err := txa.Commit(); !errors.Is(err, graphdb.ErrLocked) {
		t.Errorf("Commit after losing the lease: %v, want ErrLocked", err)
	}
	if err := txb.Commit(); err != nil {
		t.Fatal(err)
	}
	if v, _ := b.Meta(ctx, "k"); v != "" {
		t.Errorf("Meta(k) = %q: the writer that lost its lease committed", v)
	}
}

func TestReadOnly(t *testing.T) {
	raw := serverURL(t)
	ctx := t.Context()
	missing := freshURL(t, raw)
	_, err := Open(ctx, missing, Options{ReadOnly: true, Password: os.Getenv("RELAY_ARANGO_PASSWORD")})
	if !errors.Is(err, graphdb.ErrNotFound) {
		t.Fatalf("read-only Open of a missing database: %v, want ErrNotFound", err)
	}
	u := freshURL(t, raw)
	openFresh(t, u, Options{})
	ro := openSecond(t, u, Options{ReadOnly: true})
	if _, err := ro.Begin(ctx); err == nil {
		t.Error("Begin on a read-only store succeeded")
	}
	if fs, err := ro.Files(ctx); err != nil || len(fs) != 0 {
		t.Errorf("Files on an empty read-only store = %v, %v", fs, err)
	}
}
