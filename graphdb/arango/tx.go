package arango

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/arangodb/go-driver/v2/arangodb"
	"github.com/arangodb/go-driver/v2/arangodb/shared"

	"github.com/relayhq/relay/graphdb"
)

// Timeouts for the calls of Tx methods that take no context.
const (
	commitTimeout = 10 * time.Minute
	abortTimeout  = time.Minute
)

// tx is the Store's one write transaction: an ArangoDB stream transaction
// writing nodes, edges, files and meta, plus the writer lease.
//
// A stream transaction serves one request at a time, so every use goes
// through mu. The keep-alive goroutine renews the lease and, when no write
// is running, touches the transaction so the server's idle timeout
// (--transaction.streaming-idle-timeout, 60 s by default) does not abort
// it while the indexer is busy parsing.
type tx struct {
	s   *Store
	trx arangodb.Transaction

	mu    sync.Mutex
	cols  map[string]arangodb.Collection
	done  bool
	errMu sync.Mutex
	err   error // set when a failed write (or a lost lease) left the transaction unusable

	stop   context.CancelFunc
	keepWG sync.WaitGroup
}

// Begin takes the writer lease and starts a stream transaction. It fails
// with an error wrapping graphdb.ErrLocked when this Store already has an
// open Tx or another writer holds the lease.
func (s *Store) Begin(ctx context.Context) (graphdb.Tx, error) {
	if err := s.checkOpen(); err != nil {
		return nil, err
	}
	if s.opts.ReadOnly {
		return nil, fmt.Errorf("begin: graph store %s is open read-only", s.target)
	}
	s.txMu.Lock()
	defer s.txMu.Unlock()
	if s.txOpen != nil {
		return nil, fmt.Errorf("begin: a transaction is already open on %s: %w", s.target, graphdb.ErrLocked)
	}
	if err := s.acquireLease(ctx); err != nil {
		return nil, fmt.Errorf("begin: %w", err)
	}
	cols := arangodb.TransactionCollections{Write: []string{colNodes, colEdges, colFiles, colMeta}}
	trx, err := s.db.BeginTransaction(ctx, cols, &arangodb.BeginTransactionOptions{MaxTransactionSize: s.opts.MaxTransactionSize})
	if err != nil {
		return nil, errors.Join(mapErr("begin stream transaction", err), s.releaseLease(context.WithoutCancel(ctx)))
	}
	t := &tx{s: s, trx: trx, cols: map[string]arangodb.Collection{}}
	for _, name := range []string{colNodes, colEdges, colFiles, colMeta} {
		c, err := trx.GetCollection(ctx, name, &arangodb.GetCollectionOptions{SkipExistCheck: true})
		if err != nil {
			_ = trx.Abort(context.WithoutCancel(ctx), nil)
			return nil, errors.Join(mapErr("begin: open collection "+name, err), s.releaseLease(context.WithoutCancel(ctx)))
		}
		t.cols[name] = c
	}
	kctx, stop := context.WithCancel(context.Background())
	t.stop = stop
	t.keepWG.Add(1)
	go t.keepAlive(kctx)
	s.txOpen = t
	s.log.Debug("arango tx begin", "target", s.target.String(), "trx", string(trx.ID()))
	return t, nil
}

// keepAlive renews the lease every LockTTL/3 and touches the idle stream
// transaction. A lost lease poisons the transaction.
func (t *tx) keepAlive(ctx context.Context) {
	defer t.keepWG.Done()
	every := t.s.opts.LockTTL / 3
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		rctx, cancel := context.WithTimeout(ctx, every)
		if err := t.s.renewLease(rctx); err != nil {
			if errors.Is(err, errLeaseLost) {
				t.setErr(err)
			}
			t.s.log.Warn("arango write lock renewal failed", "target", t.s.target.String(), "err", err)
		}
		if t.mu.TryLock() {
			if !t.done {
				if _, err := queryAll[int](rctx, t.trx, aql{Text: "RETURN 1"}); err != nil && ctx.Err() == nil {
					t.s.log.Warn("arango transaction keep-alive failed", "target", t.s.target.String(), "err", err)
				}
			}
			t.mu.Unlock()
		}
		cancel()
	}
}

func (t *tx) setErr(err error) {
	t.errMu.Lock()
	defer t.errMu.Unlock()
	if t.err == nil {
		t.err = err
	}
}

func (t *tx) failed() error {
	t.errMu.Lock()
	defer t.errMu.Unlock()
	return t.err
}

// fail records err as the reason the transaction can no longer commit: a
// write that failed halfway leaves an owner half-replaced inside the
// transaction, so the only way out is Rollback.
func (t *tx) fail(err error) error {
	t.setErr(err)
	return err
}

// usable reports why the transaction cannot take writes, if it cannot.
// Callers hold t.mu.
func (t *tx) usable() error {
	if t.done {
		return errors.New("transaction already committed or rolled back")
	}
	if err := t.s.checkOpen(); err != nil {
		return err
	}
	if err := t.failed(); err != nil {
		return fmt.Errorf("transaction failed earlier and can only be rolled back: %w", err)
	}
	return nil
}

// ReplaceFile swaps everything owned by f.Path for nodes and edges inside
// the transaction: AQL removes by owner, then batched inserts. Invalid
// input and ids owned by another file are rejected before anything is
// written; a later failure makes the transaction unusable except for
// Rollback.
func (t *tx) ReplaceFile(ctx context.Context, f graphdb.FileRecord, nodes []graphdb.Node, edges []graphdb.Edge) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if err := t.usable(); err != nil {
		return err
	}
	if err := graphdb.ValidateReplace(f, nodes, edges); err != nil {
		return err
	}
	ndocs := make([]nodeDoc, len(nodes))
	keys := make([]string, len(nodes))
	for i, n := range nodes {
		ndocs[i] = toNodeDoc(f.Path, n)
		keys[i] = ndocs[i].Key
	}
	if err := t.checkOwners(ctx, f.Path, keys); err != nil {
		return err
	}
	if err := t.removeOwned(ctx, f.Path); err != nil {
		return t.fail(fmt.Errorf("replace file %s: %w", f.Path, err))
	}
	replace := arangodb.CollectionDocumentCreateOverwriteModeReplace
	if _, err := t.cols[colFiles].CreateDocumentWithOptions(ctx, toFileDoc(f), &arangodb.CollectionDocumentCreateOptions{OverwriteMode: &replace}); err != nil {
		return t.fail(mapErr(fmt.Sprintf("replace file %s: write file record", f.Path), err))
	}
	if err := insertAll(ctx, t.cols[colNodes], ndocs, t.s.opts.BatchSize); err != nil {
		return t.fail(mapErr(fmt.Sprintf("replace file %s: insert %d nodes", f.Path, len(ndocs)), err))
	}
	edocs := make([]edgeDoc, len(edges))
	for i, e := range edges {
		edocs[i] = toEdgeDoc(f.Path, e)
	}
	if err := insertAll(ctx, t.cols[colEdges], edocs, t.s.opts.BatchSize); err != nil {
		return t.fail(mapErr(fmt.Sprintf("replace file %s: insert %d edges", f.Path, len(edocs)), err))
	}
	return nil
}

// checkOwners fails when any of keys belongs to a node of another owner.
// It only reads, so a rejection leaves the transaction usable.
func (t *tx) checkOwners(ctx context.Context, path string, keys []string) error {
	type owned struct {
		ID    graphdb.NodeID `json:"id"`
		Owner string         `json:"owner"`
	}
	for i := 0; i < len(keys); i += t.s.opts.BatchSize {
		chunk := keys[i:min(i+t.s.opts.BatchSize, len(keys))]
		got, err := queryAll[owned](ctx, t.trx, ownersQuery(path, chunk))
		if err != nil {
			return t.fail(mapErr(fmt.Sprintf("replace file %s: check node owners", path), err))
		}
		if len(got) > 0 {
			return fmt.Errorf("replace file %s: node id %q is already owned by %s; node ids must be unique across files", path, got[0].ID, got[0].Owner)
		}
	}
	return nil
}

// removeOwned deletes the nodes and edges owned by path.
func (t *tx) removeOwned(ctx context.Context, path string) error {
	for _, col := range []string{colNodes, colEdges} {
		if _, err := queryAll[any](ctx, t.trx, removeOwnedQuery(col, path)); err != nil {
			return mapErr("remove old "+col, err)
		}
	}
	return nil
}

// insertAll writes docs in batches of size, checking the per-document
// results: the multi-document API reports a failed document in the
// response, not as the request's error.
func insertAll[T any](ctx context.Context, col arangodb.Collection, docs []T, size int) error {
	for i := 0; i < len(docs); i += size {
		r, err := col.CreateDocuments(ctx, docs[i:min(i+size, len(docs))])
		if err != nil {
			return err
		}
		for {
			_, err := r.Read()
			if shared.IsNoMoreDocuments(err) {
				break
			}
			if err != nil {
				return err
			}
		}
	}
	return nil
}

// DeleteFile deletes the owner and everything it owns; a missing owner is
// not an error.
func (t *tx) DeleteFile(ctx context.Context, path string) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if err := t.usable(); err != nil {
		return err
	}
	if path == "" {
		return errors.New("delete file: empty path")
	}
	if err := t.removeOwned(ctx, path); err != nil {
		return t.fail(fmt.Errorf("delete file %s: %w", path, err))
	}
	if _, err := t.cols[colFiles].DeleteDocument(ctx, docKey(path)); err != nil && !isDocNotFound(err) {
		return t.fail(mapErr(fmt.Sprintf("delete file %s: remove file record", path), err))
	}
	return nil
}

// SetMeta stores a small string value.
func (t *tx) SetMeta(ctx context.Context, key, value string) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if err := t.usable(); err != nil {
		return err
	}
	if key == "" {
		return errors.New("set meta: empty key")
	}
	replace := arangodb.CollectionDocumentCreateOverwriteModeReplace
	d := metaDoc{Key: docKey(key), Name: key, Value: value}
	if _, err := t.cols[colMeta].CreateDocumentWithOptions(ctx, d, &arangodb.CollectionDocumentCreateOptions{OverwriteMode: &replace}); err != nil {
		return t.fail(mapErr(fmt.Sprintf("set meta %q", key), err))
	}
	return nil
}

// Commit renews the lease one last time (refusing to commit when it was
// lost), commits the stream transaction and releases the lease. A
// transaction whose earlier write failed is rolled back instead.
func (t *tx) Commit() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.done {
		return errors.New("commit: transaction already committed or rolled back")
	}
	if err := t.usable(); err != nil {
		return errors.Join(fmt.Errorf("commit: %w", err), t.rollbackLocked())
	}
	t.stopKeepAlive()
	ctx, cancel := context.WithTimeout(context.Background(), commitTimeout)
	defer cancel()
	if err := t.s.renewLease(ctx); err != nil {
		return errors.Join(fmt.Errorf("commit: %w", err), t.rollbackLocked())
	}
	if err := t.trx.Commit(ctx, nil); err != nil {
		_ = t.trx.Abort(ctx, nil)
		return errors.Join(mapErr("commit", err), t.finish(ctx))
	}
	t.s.log.Debug("arango tx commit", "target", t.s.target.String(), "trx", string(t.trx.ID()))
	return t.finish(ctx)
}

// Rollback aborts the stream transaction and releases the lease.
func (t *tx) Rollback() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.done {
		return nil
	}
	return t.rollbackLocked()
}

func (t *tx) rollbackLocked() error {
	t.stopKeepAlive()
	ctx, cancel := context.WithTimeout(context.Background(), abortTimeout)
	defer cancel()
	var err error
	// A transaction the server already expired is as good as aborted.
	if aerr := t.trx.Abort(ctx, nil); aerr != nil && !shared.IsNotFound(aerr) &&
		!shared.IsArangoErrorWithErrorNum(aerr, shared.ErrTransactionNotFound, shared.ErrTransactionAborted) {
		err = mapErr("rollback", aerr)
	}
	return errors.Join(err, t.finish(ctx))
}

// stopKeepAlive stops the renewal goroutine and waits for it. It may run
// while t.mu is held: the goroutine only TryLocks it.
func (t *tx) stopKeepAlive() {
	t.stop()
	t.keepWG.Wait()
}

// finish marks the transaction done, releases the lease and frees the
// Store for the next Begin.
func (t *tx) finish(ctx context.Context) error {
	t.done = true
	err := t.s.releaseLease(ctx)
	t.s.txMu.Lock()
	if t.s.txOpen == t {
		t.s.txOpen = nil
	}
	t.s.txMu.Unlock()
	return err
}
