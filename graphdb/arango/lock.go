package arango

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/relayhq/relay/graphdb"
)

// DESIGN: the writer lease.
//
// ArangoDB stream transactions do not exclude each other: two relay
// writers would both run and the second commit would fail halfway through
// an index run, or (touching different documents) both would succeed and
// interleave. So one writer per database holds a lease: the document
// meta/relay-writer-lock {holder, expires}. Begin takes it with one UPSERT
// that succeeds when the lease is free, expired, or already ours; two
// writers racing on it collide on the same document and the loser gets a
// write-write conflict, reported as graphdb.ErrLocked like a held lease.
// An open Tx renews the lease every LockTTL/3 (outside the stream
// transaction, so the renewal is visible at once) and, right before
// committing, renews it once more and refuses to commit if it was lost. A
// writer that crashes stops renewing, and its lease lapses after LockTTL.
//
// The lease relies on the writers' clocks agreeing to within a fraction of
// LockTTL; relay writes the expiry in the writer's clock and compares with
// the next writer's.

// millis converts a time to Unix milliseconds.
func millis(t time.Time) int64 { return t.UnixMilli() }

// acquireLease takes the writer lease or fails with an error wrapping
// graphdb.ErrLocked that names the current holder.
func (s *Store) acquireLease(ctx context.Context) error {
	now := s.opts.Now()
	docs, err := queryAll[lockDoc](ctx, s.db, acquireLockQuery(s.opts.Holder, millis(now), millis(now.Add(s.opts.LockTTL))))
	if err != nil {
		if isWriteConflict(err) {
			return fmt.Errorf("graph store %s: another writer is taking the write lock at this moment: %w", s.target, graphdb.ErrLocked)
		}
		return mapErr("take the write lock", err)
	}
	if len(docs) != 1 {
		return fmt.Errorf("take the write lock: the lock query returned %d documents, want 1", len(docs))
	}
	return leaseHeld(s.target, s.opts.Holder, docs[0])
}

// leaseHeld turns a lease document read after an acquire attempt into nil
// (ours) or an error wrapping graphdb.ErrLocked.
func leaseHeld(t Target, holder string, d lockDoc) error {
	if d.Holder == holder {
		return nil
	}
	until := time.UnixMilli(d.Expires).UTC().Format(time.RFC3339)
	return fmt.Errorf("graph store %s is being written by %s (its lease runs until %s unless renewed; a crashed writer's lease lapses by then): %w",
		t, d.Holder, until, graphdb.ErrLocked)
}

// errLeaseLost is returned when the lease expired and another writer took it.
var errLeaseLost = errors.New("the write lock expired and was taken by another writer")

// renewLease extends the lease; it fails with errLeaseLost (wrapping
// graphdb.ErrLocked) when the lease is no longer ours.
func (s *Store) renewLease(ctx context.Context) error {
	exp := s.opts.Now().Add(s.opts.LockTTL)
	got, err := queryAll[int64](ctx, s.db, renewLockQuery(s.opts.Holder, millis(exp)))
	if err != nil {
		return mapErr("renew the write lock", err)
	}
	if len(got) == 0 {
		return fmt.Errorf("graph store %s: %w: %w", s.target, errLeaseLost, graphdb.ErrLocked)
	}
	return nil
}

// releaseLease removes the lease if it is still ours.
func (s *Store) releaseLease(ctx context.Context) error {
	if _, err := queryAll[any](ctx, s.db, releaseLockQuery(s.opts.Holder)); err != nil {
		return mapErr("release the write lock", err)
	}
	return nil
}
